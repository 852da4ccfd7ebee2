import Foundation

/// Byte comparisons for keys, which are short: a call to `memcmp` cost more than the comparison itself.
enum JSONBytes {
    /// Whether the `count` bytes at `lhs` and `rhs` are equal.
    @inline(__always)
    static func equal(_ lhs: UnsafeRawPointer, _ rhs: UnsafeRawPointer, count: Int) -> Bool {
        // Two overlapping word loads cover any length from one word to two, without reading past either end.
        switch count {
        case 0:
            return true
        case 1...3:
            for offset in 0..<count where lhs.load(fromByteOffset: offset, as: UInt8.self)
                != rhs.load(fromByteOffset: offset, as: UInt8.self)
            {
                return false
            }
            return true
        case 4...7:
            return lhs.loadUnaligned(as: UInt32.self) == rhs.loadUnaligned(as: UInt32.self)
                && lhs.loadUnaligned(fromByteOffset: count &- 4, as: UInt32.self)
                    == rhs.loadUnaligned(fromByteOffset: count &- 4, as: UInt32.self)
        case 8...16:
            return lhs.loadUnaligned(as: UInt64.self) == rhs.loadUnaligned(as: UInt64.self)
                && lhs.loadUnaligned(fromByteOffset: count &- 8, as: UInt64.self)
                    == rhs.loadUnaligned(fromByteOffset: count &- 8, as: UInt64.self)
        default:
            return memcmp(lhs, rhs, count) == 0
        }
    }
}
