import Foundation

/// The output of one ``JSONFastEncoder`` run: a growable block of memory that it owns, with the byte-level writes
/// the encoder needs (punctuation, literals, digits, quoted and escaped strings).
///
/// A plain `malloc` block rather than an `[UInt8]`, as in ``BinaryWriter``: every `Array.append` pays for a
/// uniqueness and a capacity check, and a small document such as a record's metadata (two keys, two strings) makes
/// a dozen of them; a write here is one capacity compare and a store. The finished document is copied once into the
/// caller's buffer.
///
/// It is a struct for speed but owns its memory, so exactly one copy may be used, and that copy must call
/// ``deallocate()`` once; ``JSONEncodingState`` is that single owner.
struct JSONByteWriter {
    private var base: UnsafeMutableRawPointer
    private var capacity: Int
    /// How many bytes have been written.
    private(set) var count = 0

    /// The first block's size: typical records fit, larger ones grow it geometrically.
    static let initialCapacity = 512

    /// The largest block kept for the next document; a larger one is swapped for a small one, so that a reused
    /// writer does not hold on to the memory of one unusually large record.
    static let maximumKeptCapacity = 64 * 1024

    init() {
        capacity = JSONByteWriter.initialCapacity
        base = JSONByteWriter.allocate(capacity)
    }

    private static func allocate(_ byteCount: Int) -> UnsafeMutableRawPointer {
        guard let block = malloc(byteCount) else { fatalError("JSONModelCodec: out of memory") }
        return block
    }

    /// Frees the memory; the writer must not be used afterwards.
    func deallocate() {
        free(base)
    }

    /// Empties the writer for the next document, keeping its block unless it grew past ``maximumKeptCapacity``.
    mutating func startOver() {
        count = 0
        if capacity > JSONByteWriter.maximumKeptCapacity {
            free(base)
            capacity = JSONByteWriter.initialCapacity
            base = JSONByteWriter.allocate(capacity)
        }
    }

    /// Copies the written bytes to the end of `buffer`, in one append.
    func append(to buffer: inout [UInt8]) {
        buffer.append(contentsOf: UnsafeRawBufferPointer(start: base, count: count))
    }

    /// The written bytes as a new `Data`.
    func data() -> Data {
        Data(bytes: base, count: count)
    }

    // MARK: - Room

    /// Makes sure `length` more bytes fit.
    @inline(__always)
    private mutating func reserve(_ length: Int) {
        if _slowPath(capacity &- count < length) {
            grow(toFit: length)
        }
    }

    @inline(never)
    private mutating func grow(toFit length: Int) {
        let (needed, overflow) = count.addingReportingOverflow(length)
        precondition(!overflow, "JSONModelCodec: document too large")
        var newCapacity = capacity
        while newCapacity < needed {
            newCapacity = newCapacity <= Int.max / 2 ? newCapacity * 2 : needed
        }
        guard let block = realloc(base, newCapacity) else { fatalError("JSONModelCodec: out of memory") }
        base = block
        capacity = newCapacity
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
        var string = string
        string.withUTF8 { putQuoted(utf8: $0) }
    }

    /// ``putQuoted(_:)`` for the string's UTF-8 bytes.
    private mutating func putQuoted(utf8: UnsafeBufferPointer<UInt8>) {
        let length = utf8.count
        // Room for the quotes and every byte unescaped: most strings need nothing more.
        reserve(length &+ 2)
        base.storeBytes(of: UInt8(ascii: "\""), toByteOffset: count, as: UInt8.self)
        count &+= 1
        if let source = utf8.baseAddress {
            if Self.isClean(source, length) {
                putRun(source, length)
            } else {
                putEscaping(source, length)
            }
        }
        base.storeBytes(of: UInt8(ascii: "\""), toByteOffset: count, as: UInt8.self)
        count &+= 1
    }

    /// Whether none of the `length` bytes at `source` needs an escape: a word at a time, the last word overlapping
    /// the one before it, and a string shorter than a word padded with a clean byte.
    @inline(__always)
    private static func isClean(_ source: UnsafePointer<UInt8>, _ length: Int) -> Bool {
        let raw = UnsafeRawPointer(source)
        guard length >= 8 else {
            var word: UInt64 = 0x4141_4141_4141_4141
            withUnsafeMutableBytes(of: &word) { ShortCopy.copy(from: raw, to: $0.baseAddress!, count: length) }
            return !needsEscape(word)
        }
        var offset = 0
        while offset &+ 8 < length {
            if needsEscape(raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) { return false }
            offset &+= 8
        }
        return !needsEscape(raw.loadUnaligned(fromByteOffset: length &- 8, as: UInt64.self))
    }

    /// Writes the `length` bytes at `source`, escaping those that need it; room for them unescaped was reserved
    /// (and for the closing quote).
    private mutating func putEscaping(_ source: UnsafePointer<UInt8>, _ length: Int) {
        var mark = 0
        var index = 0
        while index < length {
            // Skip eight clean bytes at a time.
            if index &+ 8 <= length,
                !Self.needsEscape(UnsafeRawPointer(source + index).loadUnaligned(as: UInt64.self))
            {
                index &+= 8
                continue
            }
            let byte = source[index]
            if byte < 0x20 || byte == 0x22 || byte == 0x5C || byte == 0x2F {
                putRun(source + mark, index &- mark)
                // An escape is up to six bytes for one: make room for it and for the rest, unescaped.
                reserve(6 &+ (length &- index) &+ 1)
                putEscape(byte)
                mark = index &+ 1
            }
            index &+= 1
        }
        putRun(source + mark, length &- mark)
    }

    /// Copies a run of bytes that needs no escape; room was reserved for it.
    @inline(__always)
    private mutating func putRun(_ start: UnsafePointer<UInt8>, _ length: Int) {
        ShortCopy.copy(from: start, to: base + count, count: length)
        count &+= length
    }

    /// Whether any of the eight bytes in `word` is a control character, `"`, `\` or `/`.
    private static func needsEscape(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        // A byte below 0x20 borrows in `word - 0x20..`; a byte equal to c is zero in `word ^ c..`. Bytes of 0x80
        // and above are masked out with `~word`, so UTF-8 never counts.
        func zeroByte(_ value: UInt64) -> UInt64 { (value &- ones) & ~value & highs }
        let below = (word &- ones &* 0x20) & ~word & highs
        return (below | zeroByte(word ^ (ones &* 0x22)) | zeroByte(word ^ (ones &* 0x5C)) | zeroByte(word ^ (ones &* 0x2F))) != 0
    }

    /// Writes the escape for `byte`; room for six bytes was reserved.
    private mutating func putEscape(_ byte: UInt8) {
        func store(_ value: UInt8) {
            base.storeBytes(of: value, toByteOffset: count, as: UInt8.self)
            count &+= 1
        }
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
