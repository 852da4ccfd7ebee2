/// The record checksum's implementations, reachable from the benchmark package only.
///
/// Not part of ModelStore's API: `@_spi(Benchmarks)` keeps it out of a plain
/// `import ModelStore`, so the benchmarks can time the C code without the library
/// publishing it and without a second copy of its sources.
@_spi(Benchmarks)
public enum RecordChecksumBenchmark {
    /// The CRC-32C of `bytes`, continuing from `initial`, with the code reads use: the CPU's
    /// CRC instruction if it has one.
    public static func hardware(_ bytes: UnsafeRawBufferPointer, continuing initial: UInt32) -> UInt32 {
        CRC32C.checksum(bytes, continuing: initial)
    }

    /// The CRC-32C of `bytes`, continuing from `initial`, with the portable slicing-by-8 table code.
    public static func portable(_ bytes: UnsafeRawBufferPointer, continuing initial: UInt32) -> UInt32 {
        CRC32C.portableChecksum(bytes, continuing: initial)
    }

    /// What ``hardware(_:)`` runs on this machine: "sse4.2", "armv8-crc" or "portable".
    public static var implementation: String {
        CRC32C.implementation
    }
}
