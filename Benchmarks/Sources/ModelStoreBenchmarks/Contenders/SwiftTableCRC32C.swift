/// The Swift byte-table CRC-32C that ModelStore used before its C target, kept here only so the
/// checksum benchmark can show what the C code buys. Not used by any store.
enum SwiftTableCRC32C {
    /// The reflected Castagnoli polynomial.
    private static let polynomial: UInt32 = 0x82F6_3B78

    private static let table: [UInt32] = (0..<256).map { index in
        var crc = UInt32(index)
        for _ in 0..<8 {
            crc = crc & 1 == 1 ? (crc >> 1) ^ polynomial : crc >> 1
        }
        return crc
    }

    /// The CRC-32C of `bytes`, continuing from `initial`, one table lookup per byte.
    static func checksum(_ bytes: UnsafeRawBufferPointer, continuing initial: UInt32) -> UInt32 {
        var crc = ~initial
        table.withUnsafeBufferPointer { table in
            for byte in bytes {
                crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8)
            }
        }
        return ~crc
    }
}
