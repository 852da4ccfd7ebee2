internal import CModelStoreCRC

/// CRC-32C (Castagnoli), the checksum LevelDB stores in its log and table files.
///
/// ModelStore needs it to check LevelDB's log records itself before a repair, because
/// LevelDB's repair replays logs without verifying their checksums (see
/// ``LevelDBLogScrubber``). The work happens in the `CModelStoreCRC` C target, which uses the
/// CPU's CRC instruction (SSE 4.2 on x86-64, the ARMv8 CRC extension on arm64) when there is
/// one: a Swift table loop costs about a nanosecond per byte, too much for a checksum that
/// every read will check.
enum CRC32C {
    /// The checksum of `bytes`, continuing from `initial` (the checksum of earlier bytes).
    static func checksum(_ bytes: UnsafeRawBufferPointer, continuing initial: UInt32 = 0) -> UInt32 {
        modelstore_crc32c_extend(initial, bytes.baseAddress, bytes.count)
    }

    /// The checksum of a record envelope under `key` (``RecordHeader/checksum(value:key:)``):
    /// the key, then (`coversHead`) `value`'s bytes 0..<3, then `value` from byte 7, in one call.
    static func recordChecksum(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer, coversHead: Bool) -> UInt32 {
        precondition(value.count >= 7, "a record envelope has at least 7 bytes")
        return modelstore_crc32c_record(key.baseAddress, key.count, value.baseAddress, value.count, coversHead ? 1 : 0)
    }

    /// The same checksum from the portable table code, whatever the CPU: for tests and
    /// benchmarks that compare it with ``checksum(_:continuing:)``.
    static func portableChecksum(_ bytes: UnsafeRawBufferPointer, continuing initial: UInt32 = 0) -> UInt32 {
        modelstore_crc32c_extend_portable(initial, bytes.baseAddress, bytes.count)
    }

    /// The code ``checksum(_:continuing:)`` runs on this machine: "sse4.2", "armv8-crc" or
    /// "portable".
    static var implementation: String {
        String(cString: modelstore_crc32c_implementation())
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
