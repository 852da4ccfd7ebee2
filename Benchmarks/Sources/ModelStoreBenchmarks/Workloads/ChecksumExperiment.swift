import Foundation
@_spi(Benchmarks) import ModelStore

/// One way to compute the record checksum (CRC-32C).
private struct ChecksumContender {
    var title: String
    var checksum: (UnsafeRawBufferPointer, UInt32) -> UInt32
}

/// Nanoseconds per CRC-32C of a 64 B, a 410 B (the benchmark's profile as JSON) and a 4 KiB
/// record, for the C target's hardware path, its portable slicing-by-8 path and the Swift
/// byte-table loop ModelStore used before. In memory only: no store, no files.
///
/// Each cell is the median of `rounds` rounds; a round checksums the same buffer, one byte
/// past an 8-byte boundary (records sit at any offset in LevelDB's buffers), for about 20 ms,
/// each checksum continuing from the one before (latency, not throughput).
func runChecksumExperiment(rounds: Int) -> String {
    let sizes = [64, 410, 4096]
    let contenders = [
        ChecksumContender(
            title: "C, \(RecordChecksumBenchmark.implementation)", checksum: RecordChecksumBenchmark.hardware),
        ChecksumContender(title: "C, portable slicing-by-8", checksum: RecordChecksumBenchmark.portable),
        ChecksumContender(title: "Swift byte table (before)", checksum: SwiftTableCRC32C.checksum),
    ]
    var random = SplitMix64(seed: 0xC4C)
    let bytes = (0..<(sizes.max()! + 1)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
    var lines = [
        "### Record checksum (CRC-32C), ns per checksum",
        "",
        "Median of \(rounds) rounds; `modelstore_crc32c_implementation()` on this machine: "
            + "`\(RecordChecksumBenchmark.implementation)`.",
        "",
        "| Implementation | " + sizes.map(formatSize).joined(separator: " | ") + " |",
        "|---|" + String(repeating: "---:|", count: sizes.count),
    ]
    bytes.withUnsafeBytes { buffer in
        for contender in contenders {
            let cells = sizes.map { size -> String in
                let record = UnsafeRawBufferPointer(rebasing: buffer[1..<(1 + size)])
                let expected = SwiftTableCRC32C.checksum(record, continuing: 0)
                precondition(contender.checksum(record, 0) == expected, "\(contender.title) is wrong")
                let timings = (0..<rounds).map { _ in nanosecondsPerChecksum(of: record, contender.checksum) }
                return String(format: "%.1f", median(timings) ?? 0)
            }
            lines.append("| \(contender.title) | " + cells.joined(separator: " | ") + " |")
        }
    }
    return lines.joined(separator: "\n")
}

/// Times `checksum` over `record` in batches until about 20 ms have passed.
private func nanosecondsPerChecksum(
    of record: UnsafeRawBufferPointer, _ checksum: (UnsafeRawBufferPointer, UInt32) -> UInt32
) -> Double {
    let clock = ContinuousClock()
    let batch = 256
    var calls = 0
    var sink: UInt32 = 0
    let start = clock.now
    var elapsed = Duration.zero
    repeat {
        // Each call continues from the previous result, as a read waits for its record's
        // checksum: this times one checksum's latency, not several overlapped by the CPU, and
        // the optimiser can neither drop the calls nor hoist them out of the loop.
        for _ in 0..<batch { sink = checksum(record, sink) }
        calls += batch
        elapsed = clock.now - start
    } while elapsed < .milliseconds(20)
    blackHole(sink)
    let (seconds, attoseconds) = elapsed.components
    return (Double(seconds) * 1e9 + Double(attoseconds) / 1e9) / Double(calls)
}

private func formatSize(_ bytes: Int) -> String {
    bytes >= 1024 ? "\(bytes / 1024) KiB" : "\(bytes) B"
}
