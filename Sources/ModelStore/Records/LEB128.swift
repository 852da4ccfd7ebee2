/// Unsigned LEB128, the variable-length integers of the version-2 record envelope: seven bits
/// per byte, least significant group first, the top bit set on every byte but the last.
enum LEB128 {
    /// The most bytes a length may take: 5 cover every value below 2³⁵, far above any record
    /// LevelDB accepts. A longer run is damage, not a number.
    static let maximumByteCount = 5

    /// Reads a number at `offset` and moves past it. Nil if the bytes end inside it, it is
    /// longer than ``maximumByteCount``, or the number exceeds the bytes left after it: every
    /// number the envelope holds counts bytes (or items of at least one byte) that follow.
    static func read(_ bytes: UnsafeRawBufferPointer, at offset: inout Int) -> Int? {
        var value = 0
        var shift = 0
        var position = offset
        while true {
            guard position < bytes.count, shift < 7 * maximumByteCount else { return nil }
            let byte = bytes[position]
            position += 1
            value |= Int(byte & 0x7F) << shift
            shift += 7
            if byte & 0x80 == 0 { break }
        }
        guard value <= bytes.count - position else { return nil }
        offset = position
        return value
    }

    /// Reads a number that counts nothing (an identifier) at `offset` and moves past it. Nil if
    /// the bytes end inside it or it is longer than ``maximumByteCount``.
    static func readIdentifier(_ bytes: UnsafeRawBufferPointer, at offset: inout Int) -> UInt64? {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        var position = offset
        while true {
            guard position < bytes.count, shift < 7 * UInt64(maximumByteCount) else { return nil }
            let byte = bytes[position]
            position += 1
            value |= UInt64(byte & 0x7F) << shift
            shift += 7
            if byte & 0x80 == 0 { break }
        }
        offset = position
        return value
    }

    /// Appends `value` (not negative).
    static func append(_ value: Int, to buffer: inout [UInt8]) {
        var rest = UInt(value)
        while rest >= 0x80 {
            buffer.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        buffer.append(UInt8(rest))
    }

    /// The number of bytes ``append(_:to:)`` writes for `value`.
    static func byteCount(of value: Int) -> Int {
        var count = 1
        var rest = UInt(value) >> 7
        while rest != 0 {
            count += 1
            rest >>= 7
        }
        return count
    }
}
