/// The keys an enumeration, count or size query covers, in LevelDB's order (the bytes of
/// the keys' UTF-8, compared one by one).
///
/// ```swift
/// store.keys(in: .prefix("feed:"))
/// store.keys(in: .range(from: "2024-01", to: "2024-07"))   // from is included, to is not
/// ```
public struct KeyRange: Sendable, Hashable {
    /// The first key included, as UTF-8 bytes; empty for the start of the database.
    let lowerBound: [UInt8]
    /// The first key excluded, as UTF-8 bytes; nil for the end of the database.
    let upperBound: [UInt8]?

    /// Every key in the database.
    public static let all = KeyRange(lowerBound: [], upperBound: nil)

    /// The keys that start with `prefix`.
    public static func prefix(_ prefix: String) -> KeyRange {
        let bytes = Array(prefix.utf8)
        return KeyRange(lowerBound: bytes, upperBound: successor(ofPrefix: bytes))
    }

    /// The keys from `lower` (included) up to `upper` (excluded); nil leaves that end open.
    public static func range(from lower: String? = nil, to upper: String? = nil) -> KeyRange {
        KeyRange(lowerBound: lower.map { Array($0.utf8) } ?? [], upperBound: upper.map { Array($0.utf8) })
    }

    /// Whether `key` lies in the range.
    @inline(__always)
    func contains(_ key: UnsafeRawBufferPointer) -> Bool {
        if !lowerBound.isEmpty, Self.compare(key, lowerBound) < 0 { return false }
        if let upperBound, Self.compare(key, upperBound) >= 0 { return false }
        return true
    }

    /// Whether `key` is past the range's end in the given direction.
    @inline(__always)
    func isPastEnd(_ key: UnsafeRawBufferPointer, reverse: Bool) -> Bool {
        if reverse {
            return !lowerBound.isEmpty && Self.compare(key, lowerBound) < 0
        }
        if let upperBound { return Self.compare(key, upperBound) >= 0 }
        return false
    }

    /// The smallest key greater than every key starting with `prefix`, or nil if none exists
    /// (the prefix is empty or all 0xFF bytes).
    static func successor(ofPrefix prefix: [UInt8]) -> [UInt8]? {
        var bytes = prefix
        while let last = bytes.last {
            if last < 0xFF {
                bytes[bytes.count - 1] = last + 1
                return bytes
            }
            bytes.removeLast()
        }
        return nil
    }

    /// Byte-wise comparison, as LevelDB's default comparator does.
    @inline(__always)
    static func compare(_ lhs: UnsafeRawBufferPointer, _ rhs: [UInt8]) -> Int {
        rhs.withUnsafeBytes { rhs in
            let common = min(lhs.count, rhs.count)
            if common > 0 {
                let order = memcmp(lhs.baseAddress!, rhs.baseAddress!, common)
                if order != 0 { return Int(order) }
            }
            return lhs.count - rhs.count
        }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
