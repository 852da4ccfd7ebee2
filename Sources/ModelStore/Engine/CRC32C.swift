/// CRC-32C (Castagnoli), the checksum LevelDB stores in its log and table files.
///
/// ModelStore needs it to check LevelDB's log records itself before a repair, because
/// LevelDB's repair replays logs without verifying their checksums (see
/// ``LevelDBLogScrubber``).
enum CRC32C {
    /// The reflected Castagnoli polynomial.
    private static let polynomial: UInt32 = 0x82F6_3B78

    private static let table: [UInt32] = (0..<256).map { index in
        var crc = UInt32(index)
        for _ in 0..<8 {
            crc = crc & 1 == 1 ? (crc >> 1) ^ polynomial : crc >> 1
        }
        return crc
    }

    /// The checksum of `bytes`, continuing from `initial` (the checksum of earlier bytes).
    static func checksum(_ bytes: UnsafeRawBufferPointer, continuing initial: UInt32 = 0) -> UInt32 {
        var crc = ~initial
        table.withUnsafeBufferPointer { table in
            for byte in bytes {
                crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8)
            }
        }
        return ~crc
    }

    /// LevelDB's "mask" delta: stored checksums are rotated and offset so that a checksum
    /// of data that itself contains checksums does not degenerate.
    private static let maskDelta: UInt32 = 0xA282_EAD8

    /// The checksum as LevelDB stores it.
    static func mask(_ crc: UInt32) -> UInt32 {
        ((crc >> 15) | (crc << 17)) &+ maskDelta
    }

    /// The checksum from its stored, masked form.
    static func unmask(_ masked: UInt32) -> UInt32 {
        let rotated = masked &- maskDelta
        return (rotated >> 17) | (rotated << 15)
    }
}
