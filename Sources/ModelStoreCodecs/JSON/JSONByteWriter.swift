import CModelStoreJSON
import Foundation

/// The output of one ``JSONFastEncoder`` run: a growable block of memory that it owns, with the byte-level writes
/// the encoder needs (punctuation, literals, digits, quoted and escaped strings).
///
/// Its memory is a ``ByteBlock``, as ``BinaryWriter``'s is: a small document such as a record's metadata (two keys,
/// two strings) made a dozen `Array.append`s, each with its uniqueness check. The finished document is copied once
/// into the caller's buffer.
///
/// It is a struct for speed but owns its memory, so exactly one copy may be used, and that copy must call
/// ``deallocate()`` once; ``JSONEncodingState`` is that single owner.
struct JSONByteWriter {
    private var block = ByteBlock()
    /// How many bytes have been written.
    private(set) var count = 0

    /// Where the written bytes start.
    private var base: UnsafeMutableRawPointer { block.base }

    /// Frees the memory; the writer must not be used afterwards.
    func deallocate() {
        block.deallocate()
    }

    /// Empties the writer for the next document, keeping its block unless it grew past
    /// ``ByteBlock/maximumKeptCapacity``.
    mutating func startOver() {
        count = 0
        block.prepareForReuse()
    }

    /// Copies the written bytes to the end of `buffer`, in one append.
    func append(to buffer: inout [UInt8]) {
        // Typed, not raw: Array's append of an `UnsafeBufferPointer<UInt8>` is one `memcpy`.
        buffer.append(contentsOf: UnsafeBufferPointer(start: base.assumingMemoryBound(to: UInt8.self), count: count))
    }

    /// The written bytes as a new `Data`.
    func data() -> Data {
        Data(bytes: base, count: count)
    }

    /// Makes sure `length` more bytes fit.
    @inline(__always)
    private mutating func reserve(_ length: Int) {
        block.reserve(length, after: count)
    }

    // MARK: - Bytes

    /// Writes one byte.
    @inline(__always)
    mutating func put(_ byte: UInt8) {
        reserve(1)
        base.storeBytes(of: byte, toByteOffset: count, as: UInt8.self)
        count &+= 1
    }

    /// Writes `bytes` as they are.
    @inline(__always)
    mutating func put(_ bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress else { return }
        reserve(bytes.count)
        ShortCopy.copy(from: source, to: base + count, count: bytes.count)
        count &+= bytes.count
    }

    /// Writes an ASCII literal such as `true` or `null`.
    @inline(__always)
    mutating func put(_ literal: StaticString) {
        put(UnsafeRawBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    // MARK: - Strings

    /// Writes a string in quotes, escaping as Foundation does: `"` and `\` with a backslash, `/` as `\/`, the
    /// control characters `\b \f \n \r \t` by name and the other ones below U+0020 as `\u00xx` (lowercase hex).
    /// Everything else, non-ASCII included, is written as raw UTF-8.
    mutating func putQuoted(_ string: String) {
        Self.withUTF8(of: string) { putQuoted(utf8: $0, afterComma: false, beforeColon: false) }
    }

    /// Writes an object's key as ``putQuoted(_:)`` does, then its colon, after a comma if `afterComma`: one
    /// reservation for the punctuation and the key.
    mutating func putKey(_ key: String, afterComma: Bool) {
        Self.withUTF8(of: key) { putQuoted(utf8: $0, afterComma: afterComma, beforeColon: true) }
    }

    /// Calls `body` with `string`'s UTF-8 bytes, in place where the string has them contiguous (native and small
    /// strings: no copy, no retain), else from a contiguous copy.
    @inline(__always)
    private static func withUTF8(of string: String, _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        if string.utf8.withContiguousStorageIfAvailable(body) != nil { return }
        var copy = string
        copy.withUTF8(body)
    }

    /// ``putQuoted(_:)`` and ``putKey(_:afterComma:)`` for the string's UTF-8 bytes.
    private mutating func putQuoted(utf8: UnsafeBufferPointer<UInt8>, afterComma: Bool, beforeColon: Bool) {
        let length = utf8.count
        // Room for the punctuation and every byte unescaped: most strings need nothing more.
        reserve(length &+ Self.stringSlack)
        if afterComma { store(UInt8(ascii: ",")) }
        store(UInt8(ascii: "\""))
        if let source = utf8.baseAddress { putBody(source, length) }
        store(UInt8(ascii: "\""))
        if beforeColon { store(UInt8(ascii: ":")) }
    }

    /// What ``putQuoted(utf8:afterComma:beforeColon:)`` reserves beyond the string's own bytes: a comma, two quotes
    /// and a colon.
    private static let stringSlack = 4

    /// Copies a string's bytes, escaping those that need it: each clean run found by the vector scan of
    /// `modelstore_json_clean_prefix` and copied whole, then the byte that ends it escaped. Most strings are one
    /// run. Room for the bytes unescaped plus ``stringSlack`` was reserved.
    @inline(__always)
    private mutating func putBody(_ source: UnsafePointer<UInt8>, _ length: Int) {
        var index = 0
        while true {
            let clean = modelstore_json_clean_prefix(source + index, length &- index)
            putRun(source + index, clean)
            index &+= clean
            guard index < length else { return }
            // An escape is up to six bytes for one: room for it, the rest unescaped and the slack.
            reserve(6 &+ (length &- index) &+ Self.stringSlack)
            putEscape(source[index])
            index &+= 1
        }
    }

    /// Copies a run of bytes that needs no escape; room was reserved for it.
    @inline(__always)
    private mutating func putRun(_ start: UnsafePointer<UInt8>, _ length: Int) {
        ShortCopy.copy(from: start, to: base + count, count: length)
        count &+= length
    }

    /// Stores one byte; room for it was reserved.
    @inline(__always)
    private mutating func store(_ byte: UInt8) {
        base.storeBytes(of: byte, toByteOffset: count, as: UInt8.self)
        count &+= 1
    }

    /// Writes the escape for `byte`; room for six bytes was reserved.
    private mutating func putEscape(_ byte: UInt8) {
        store(UInt8(ascii: "\\"))
        switch byte {
        case 0x22, 0x5C, 0x2F: store(byte)
        case 0x08: store(UInt8(ascii: "b"))
        case 0x0C: store(UInt8(ascii: "f"))
        case 0x0A: store(UInt8(ascii: "n"))
        case 0x0D: store(UInt8(ascii: "r"))
        case 0x09: store(UInt8(ascii: "t"))
        default:
            let hex: StaticString = "0123456789abcdef"
            store(UInt8(ascii: "u"))
            store(UInt8(ascii: "0"))
            store(UInt8(ascii: "0"))
            store(hex.utf8Start[Int(byte >> 4)])
            store(hex.utf8Start[Int(byte & 0xF)])
        }
    }
}
