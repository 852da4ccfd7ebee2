import Foundation

/// Bounds-checked reads from memory that the decoder only borrows for one decode call.
///
/// Every read takes `limit`, the end of the enclosing value, and checks the bytes it needs against it before
/// touching memory. Lengths read from the payload are checked against the bytes that remain before anything is
/// allocated, so a hostile length can neither read out of bounds nor make us allocate more than the input's size.
struct BinaryReader {
    private let base: UnsafeRawPointer?
    /// The payload's length. Every `limit` is at most this; it is 0 once the decode call has returned.
    let count: Int

    init(_ buffer: UnsafeRawBufferPointer) {
        base = buffer.baseAddress
        count = buffer.baseAddress == nil ? 0 : buffer.count
    }

    /// A reader over nothing; a decoder that outlives its decode call gets this, so it can only throw.
    static var empty: BinaryReader { BinaryReader(UnsafeRawBufferPointer(start: nil, count: 0)) }

    /// Throws unless `length` bytes starting at `position` lie inside both `limit` and the payload.
    @inline(__always)
    private func check(_ position: Int, _ length: Int, _ limit: Int) throws(BinaryReadError) {
        // `limit <= count` holds by construction; checking it again costs one compare and keeps a decoder that was
        // smuggled out of its decode call (count is 0 then) from reading memory that is gone.
        guard position >= 0, limit <= count, length <= limit &- position else {
            throw .truncated(at: position)
        }
    }

    @inline(__always)
    private func pointer(_ position: Int) -> UnsafeRawPointer {
        base.unsafelyUnwrapped + position
    }

    // MARK: - Scalars

    func tag(at position: Int, limit: Int) throws(BinaryReadError) -> UInt8 {
        try check(position, 1, limit)
        return pointer(position).load(as: UInt8.self)
    }

    func varint(at position: inout Int, limit: Int) throws(BinaryReadError) -> UInt64 {
        let start = position
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            try check(position, 1, limit)
            let byte = pointer(position).load(as: UInt8.self)
            position &+= 1
            // The tenth byte holds bit 63 only; anything more would not fit in 64 bits.
            if shift == 63 && byte > 1 {
                throw .malformed("varint does not fit in 64 bits", at: start)
            }
            result |= UInt64(byte & 0x7F) &<< shift
            if byte < 0x80 { return result }
            shift &+= 7
        }
    }

    /// A varint length, checked against the bytes left before `limit` so a caller may allocate that much.
    func length(at position: inout Int, limit: Int) throws(BinaryReadError) -> Int {
        let start = position
        let value = try varint(at: &position, limit: limit)
        guard value <= UInt64(limit &- position) else { throw .truncated(at: start) }
        return Int(value)
    }

    private func uint32(at position: Int) -> Int {
        Int(UInt32(littleEndian: pointer(position).loadUnaligned(as: UInt32.self)))
    }

    private func uint64(at position: Int) -> UInt64 {
        UInt64(littleEndian: pointer(position).loadUnaligned(as: UInt64.self))
    }

    // MARK: - Values

    func bool(at position: inout Int, limit: Int) throws(BinaryReadError) -> Bool {
        let tag = try tag(at: position, limit: limit)
        switch tag {
        case BinaryFormat.Tag.falseValue: position &+= 1; return false
        case BinaryFormat.Tag.trueValue: position &+= 1; return true
        default: throw .mismatch(found: tag, at: position)
        }
    }

    /// Reads any stored number into `T` if it is exactly representable there, so a model may widen or narrow a
    /// field's numeric type as long as the stored values still fit.
    func integer<T: FixedWidthInteger>(_: T.Type, at position: inout Int, limit: Int) throws(BinaryReadError) -> T {
        let start = position
        let tag = try tag(at: position, limit: limit)
        var next = position &+ 1
        switch tag {
        case BinaryFormat.Tag.signed:
            let raw = try varint(at: &next, limit: limit)
            let value = Int64(bitPattern: (raw &>> 1) ^ (0 &- (raw & 1)))
            guard let result = T(exactly: value) else { throw .notRepresentable("\(value)", at: start) }
            position = next
            return result
        case BinaryFormat.Tag.unsigned:
            let value = try varint(at: &next, limit: limit)
            guard let result = T(exactly: value) else { throw .notRepresentable("\(value)", at: start) }
            position = next
            return result
        case BinaryFormat.Tag.float32, BinaryFormat.Tag.float64:
            next = start
            let value = try double(at: &next, limit: limit)
            guard let result = T(exactly: value) else { throw .notRepresentable("\(value)", at: start) }
            position = next
            return result
        default:
            throw .mismatch(found: tag, at: start)
        }
    }

    func double(at position: inout Int, limit: Int) throws(BinaryReadError) -> Double {
        let tag = try tag(at: position, limit: limit)
        switch tag {
        case BinaryFormat.Tag.float64:
            try check(position &+ 1, 8, limit)
            let value = Double(bitPattern: uint64(at: position &+ 1))
            position &+= 9
            return value
        case BinaryFormat.Tag.float32:
            try check(position &+ 1, 4, limit)
            let value = Double(Float(bitPattern: UInt32(uint32(at: position &+ 1))))
            position &+= 5
            return value
        case BinaryFormat.Tag.signed, BinaryFormat.Tag.unsigned:
            return try exactFloatingPoint(Double.self, at: &position, limit: limit)
        default:
            throw .mismatch(found: tag, at: position)
        }
    }

    func float(at position: inout Int, limit: Int) throws(BinaryReadError) -> Float {
        let tag = try tag(at: position, limit: limit)
        switch tag {
        case BinaryFormat.Tag.float32:
            try check(position &+ 1, 4, limit)
            let value = Float(bitPattern: UInt32(uint32(at: position &+ 1)))
            position &+= 5
            return value
        case BinaryFormat.Tag.float64:
            let start = position
            let wide = try double(at: &position, limit: limit)
            let narrow = Float(wide)
            // NaN never equals itself but narrows meaningfully; anything else must survive the round trip.
            guard wide.isNaN || Double(narrow) == wide else {
                position = start
                throw .notRepresentable("\(wide)", at: start)
            }
            return narrow
        case BinaryFormat.Tag.signed, BinaryFormat.Tag.unsigned:
            return try exactFloatingPoint(Float.self, at: &position, limit: limit)
        default:
            throw .mismatch(found: tag, at: position)
        }
    }

    /// An integer read as a floating-point number, if the number has an exact binary representation.
    private func exactFloatingPoint<F: BinaryFloatingPoint>(
        _: F.Type,
        at position: inout Int,
        limit: Int
    ) throws(BinaryReadError) -> F {
        let start = position
        var next = position
        let result: F?
        if try tag(at: position, limit: limit) == BinaryFormat.Tag.signed {
            result = F(exactly: try integer(Int64.self, at: &next, limit: limit))
        } else {
            result = F(exactly: try integer(UInt64.self, at: &next, limit: limit))
        }
        guard let result else { throw .notRepresentable("integer", at: start) }
        position = next
        return result
    }

    func string(at position: inout Int, limit: Int) throws(BinaryReadError) -> String {
        let tag = try tag(at: position, limit: limit)
        guard tag == BinaryFormat.Tag.string else { throw .mismatch(found: tag, at: position) }
        var next = position &+ 1
        let length = try length(at: &next, limit: limit)
        guard let string = makeString(start: next, length: length) else {
            throw .malformed("string is not valid UTF-8", at: position)
        }
        position = next &+ length
        return string
    }

    /// The raw bytes of a bytes value (`Data`, `UUID`), without copying them.
    func bytes(at position: inout Int, limit: Int) throws(BinaryReadError) -> UnsafeRawBufferPointer {
        let tag = try tag(at: position, limit: limit)
        guard tag == BinaryFormat.Tag.bytes else { throw .mismatch(found: tag, at: position) }
        var next = position &+ 1
        let length = try length(at: &next, limit: limit)
        position = next &+ length
        return UnsafeRawBufferPointer(start: pointer(next), count: length)
    }

    // MARK: - Containers

    /// Where a container's entries or elements lie, and how many there are.
    struct ContainerBounds {
        var bodyStart: Int
        var bodyEnd: Int
        var count: Int
    }

    /// Reads the header of the container at `position`, which must carry `expectedTag`.
    func container(_ expectedTag: UInt8, at position: Int, limit: Int) throws(BinaryReadError) -> ContainerBounds {
        let tag = try tag(at: position, limit: limit)
        guard tag == expectedTag else { throw .mismatch(found: tag, at: position) }
        return try containerHeader(at: position, limit: limit)
    }

    private func containerHeader(at position: Int, limit: Int) throws(BinaryReadError) -> ContainerBounds {
        try check(position, BinaryFormat.containerHeaderSize, limit)
        let length = uint32(at: position &+ 1)
        let count = uint32(at: position &+ 5)
        let bodyStart = position &+ BinaryFormat.containerHeaderSize
        guard length <= limit &- bodyStart else { throw .truncated(at: position) }
        // Every element takes at least one byte, so a larger count is a lie that would make callers over-allocate.
        guard count <= length else {
            throw .malformed("container claims \(count) elements in \(length) bytes", at: position)
        }
        return ContainerBounds(bodyStart: bodyStart, bodyEnd: bodyStart &+ length, count: count)
    }

    /// The end of the value at `position`, found without decoding it. Containers carry their length, so this is
    /// O(1) and never recurses, whatever the value holds.
    func skip(at position: Int, limit: Int) throws(BinaryReadError) -> Int {
        let tag = try tag(at: position, limit: limit)
        var next = position &+ 1
        switch tag {
        case BinaryFormat.Tag.null, BinaryFormat.Tag.falseValue, BinaryFormat.Tag.trueValue:
            return next
        case BinaryFormat.Tag.unsigned, BinaryFormat.Tag.signed:
            _ = try varint(at: &next, limit: limit)
            return next
        case BinaryFormat.Tag.float32:
            try check(next, 4, limit)
            return next &+ 4
        case BinaryFormat.Tag.float64:
            try check(next, 8, limit)
            return next &+ 8
        case BinaryFormat.Tag.string, BinaryFormat.Tag.bytes:
            let length = try length(at: &next, limit: limit)
            return next &+ length
        case BinaryFormat.Tag.keyed, BinaryFormat.Tag.unkeyed:
            return try containerHeader(at: position, limit: limit).bodyEnd
        default:
            throw .malformed("unknown tag \(tag)", at: position)
        }
    }

    // MARK: - Keys

    /// Reads the key of the keyed entry at `position`: returns where its UTF-8 bytes start and how many there are,
    /// and moves `position` to the entry's value.
    func key(at position: inout Int, limit: Int) throws(BinaryReadError) -> (start: Int, length: Int) {
        let length = try length(at: &position, limit: limit)
        let start = position
        position &+= length
        return (start, length)
    }

    /// Where the value of the keyed entry at `position` starts, if that entry's key is `wanted`; nil if it has
    /// another key or is damaged.
    @inline(__always)
    func valueStart(ofEntryAt position: Int, limit: Int, ifKeyIs wanted: UnsafeBufferPointer<UInt8>) -> Int? {
        guard position >= 0, position < limit, limit <= count else { return nil }
        let first = pointer(position).load(as: UInt8.self)
        guard first < 0x80 else {
            return valueStart(ofLongKeyEntryAt: position, limit: limit, ifKeyIs: wanted)
        }
        let start = position &+ 1
        let length = Int(first)
        guard length <= limit &- start, keyEquals(start: start, length: length, wanted) else { return nil }
        return start &+ length
    }

    /// ``valueStart(ofEntryAt:limit:ifKeyIs:)`` for keys of 128 bytes or more, whose length takes several bytes.
    @inline(never)
    private func valueStart(ofLongKeyEntryAt position: Int, limit: Int, ifKeyIs wanted: UnsafeBufferPointer<UInt8>)
        -> Int?
    {
        var cursor = position
        guard let key = try? key(at: &cursor, limit: limit),
            keyEquals(start: key.start, length: key.length, wanted)
        else { return nil }
        return cursor
    }

    /// Whether the stored key bytes equal `wanted`; compares bytes so no String is built per key.
    @inline(__always)
    func keyEquals(start: Int, length: Int, _ wanted: UnsafeBufferPointer<UInt8>) -> Bool {
        guard length == wanted.count else { return false }
        guard length > 0 else { return true }
        guard start >= 0, start <= count &- length else { return false }
        let stored = pointer(start)
        let other = UnsafeRawPointer(wanted.baseAddress.unsafelyUnwrapped)
        // Keys are short: two overlapping word compares beat a call to memcmp up to 16 bytes.
        switch length {
        case 8...16:
            return Self.equalEnds(stored, other, length, as: UInt64.self)
        case 4..<8:
            return Self.equalEnds(stored, other, length, as: UInt32.self)
        case 1..<4:
            return Self.equalEnds(stored, other, length, as: UInt8.self)
                && (length < 3
                    || stored.load(fromByteOffset: 1, as: UInt8.self) == other.load(fromByteOffset: 1, as: UInt8.self))
        default:
            return memcmp(stored, other, length) == 0
        }
    }

    /// Compares the first and the last `Word` of two `length`-byte ranges (`length` at least the word's size); up to
    /// twice the word's size that covers every byte, and for three bytes the caller compares the middle one.
    @inline(__always)
    private static func equalEnds<Word: FixedWidthInteger>(
        _ lhs: UnsafeRawPointer,
        _ rhs: UnsafeRawPointer,
        _ length: Int,
        as _: Word.Type
    ) -> Bool {
        let tail = length &- MemoryLayout<Word>.size
        return lhs.loadUnaligned(as: Word.self) == rhs.loadUnaligned(as: Word.self)
            && lhs.loadUnaligned(fromByteOffset: tail, as: Word.self)
                == rhs.loadUnaligned(fromByteOffset: tail, as: Word.self)
    }

    /// The stored key as a String, for `allKeys`, where the caller needs one anyway.
    func keyString(start: Int, length: Int) -> String? {
        guard start >= 0, length >= 0, start <= count &- length else { return nil }
        return makeString(start: start, length: length)
    }

    /// A String of the UTF-8 bytes in `start..<start + length` (already bounds-checked), or nil if they are not
    /// valid UTF-8.
    private func makeString(start: Int, length: Int) -> String? {
        let utf8 = UnsafeRawBufferPointer(start: pointer(start), count: length)
        guard BinaryUTF8.isValid(utf8) else { return nil }
        return String(decoding: utf8, as: UTF8.self)
    }

    /// A hash of the stored key bytes (FNV-1a), for the index of large keyed containers.
    func keyHash(start: Int, length: Int) -> UInt64 {
        guard start >= 0, length > 0, start <= count &- length else { return BinaryReader.fnvOffset }
        return BinaryReader.hash(UnsafeRawBufferPointer(start: pointer(start), count: length))
    }

    static let fnvOffset: UInt64 = 0xcbf2_9ce4_8422_2325

    static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var hash = fnvOffset
        for byte in bytes {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        return hash
    }
}
