import ModelStore

/// What a removal leaves under a record key in Redis: `T` and the removal's version (8 bytes,
/// Float64 little-endian), for ``RedisTier/tombstoneLifetime``. A publication that arrives later
/// with an older version (a connection that stalled) finds it and changes nothing; a reader
/// takes it as a miss. No record starts with `T` (their first byte is 1, 2 or 0x33).
enum Tombstone {
    static let mark = UInt8(ascii: "T")

    /// The tombstone of a removal at `version`.
    static func value(_ version: SharedTierVersion) -> [UInt8] {
        var bytes = [mark]
        withUnsafeBytes(of: version.time.bitPattern.littleEndian) { bytes.append(contentsOf: $0) }
        return bytes
    }

    /// The removal's time, if `bytes` is a tombstone.
    static func time(of bytes: [UInt8]) -> Double? {
        guard bytes.count == 9, bytes[0] == mark else { return nil }
        var bits: UInt64 = 0
        for index in 0..<8 { bits |= UInt64(bytes[1 + index]) << (8 * index) }
        return Double(bitPattern: bits)
    }
}
