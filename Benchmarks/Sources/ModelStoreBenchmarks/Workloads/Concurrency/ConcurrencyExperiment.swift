import Foundation

/// The settings of `modelstore-bench concurrency`.
struct ConcurrencyOptions {
    /// Records in the latency store (the scaling runs use at most 100,000).
    var records = 1_000_000
    var rounds = 3
    var readers = 1
    var writers = 2
    var idleSeconds = 3.0
    var writeSeconds = 10.0
    /// LevelDB's write buffer for the latency store; nil keeps ModelStore's default.
    var writeBufferSize: Int?
    /// The writer threads' nice value: 0 runs them at the readers' priority; 10 is how a server
    /// would run a background import.
    var writerNice = 0
    /// "scaling", "latency", "hits" (the cache-hit scaling alone) or nil for scaling and latency.
    var only: String?
    var directory: String
    var jsonPath: String?
}

/// Everything one run measured, as written by `--json`.
struct ConcurrencyReport: Codable {
    var machine: String
    var date: String
    var scalingRecords: Int
    var scaling: [ScalingResult]
    var latency: LatencyResult?
    var verdicts: [Verdict]

    struct Verdict: Codable {
        var target: String
        var measured: String
        var met: Bool
    }
}

/// Reads and writes from several threads at once (issue 16, part 3): read and put throughput
/// with 1 and 2 threads, and read latency while writers overwrite random keys. Returns the
/// markdown report; writes the JSON one to `options.jsonPath`.
func runConcurrencyExperiment(_ options: ConcurrencyOptions) throws -> String {
    let scalingRecords = min(100_000, options.records)
    var scaling: [ScalingResult] = []
    if options.only != "latency" {
        log("concurrency: scaling, \(scalingRecords) records, \(options.rounds) rounds")
        scaling = try runScalingExperiment(
            records: scalingRecords, rounds: options.rounds, directory: options.directory,
            quick: options.records < 100_000, onlyCacheHits: options.only == "hits")
    }
    var latency: LatencyResult?
    if options.only == nil || options.only == "latency" {
        log("concurrency: latency, \(options.records) records")
        latency = try runLatencyExperiment(
            records: options.records, readers: options.readers, writers: options.writers,
            idleSeconds: options.idleSeconds, writeSeconds: options.writeSeconds,
            writeBufferSize: options.writeBufferSize, writerNice: options.writerNice, directory: options.directory)
    }
    let report = ConcurrencyReport(
        machine: MachineDescription.current().markdown, date: ISO8601DateFormatter().string(from: Date()),
        scalingRecords: scalingRecords, scaling: scaling, latency: latency,
        verdicts: verdicts(scaling: scaling, latency: latency))
    if let path = options.jsonPath {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(report).write(to: URL(fileURLWithPath: path))
    }
    return markdown(report)
}

private func verdicts(scaling: [ScalingResult], latency: LatencyResult?) -> [ConcurrencyReport.Verdict] {
    var verdicts: [ConcurrencyReport.Verdict] = []
    for result in scaling {
        guard let target = result.target else { continue }
        verdicts.append(.init(
            target: "\(result.name): 2 threads ≥ \(String(format: "%.1f", target))x one",
            measured: String(format: "%.2fx (per CPU second %.2fx)", result.ratio, result.cpuRatio),
            met: result.ratio >= target))
    }
    if let latency {
        let idle = latency.idleReads
        let busy = latency.readsUnderWrites
        let writes = latency.writes
        verdicts.append(.init(
            target: "Readers' p99.9 under writes ≤ 2x idle",
            measured: String(format: "%.1f µs vs %.1f µs idle (%.2fx)", busy.p999, idle.p999, busy.p999 / idle.p999),
            met: busy.p999 <= 2 * idle.p999))
        verdicts.append(.init(
            target: "Readers' max under writes ≤ 5 ms",
            measured: String(format: "%.2f ms", busy.max / 1_000), met: busy.max <= 5_000))
        verdicts.append(.init(
            target: "Writers' p99.9 ≤ 20x their p50",
            measured: String(format: "%.1f µs vs p50 %.1f µs (%.1fx)", writes.p999, writes.p50, writes.p999 / writes.p50),
            met: writes.p999 <= 20 * writes.p50))
    }
    return verdicts
}

private func markdown(_ report: ConcurrencyReport) -> String {
    var lines = ["## Concurrency", "", report.machine, ""]
    if !report.scaling.isEmpty {
        lines += [
            "### Throughput with 1 and 2 threads",
            "",
            "\(formatCount(report.scalingRecords)) records (JSON codec, ModelStore's defaults), random precomputed "
                + "keys; median of the rounds. \"Per CPU s\": operations per CPU second of the measured threads, "
                + "which a busy machine does not lower but contention does (the ratio is 2x the 2-thread "
                + "figure over the 1-thread one, so 2.00x is perfect scaling).",
            "",
            "| Operation | 1 thread /s | 2 threads /s | 2 vs 1 | per CPU s, 2 vs 1 | Target |",
            "|---|---:|---:|---:|---:|---|",
        ]
        for result in report.scaling {
            lines.append(
                "| \(result.name) | \(formatCount(Int(result.oneThread))) | \(formatCount(Int(result.twoThreads))) | "
                    + String(format: "%.2fx | %.2fx | ", result.ratio, result.cpuRatio)
                    + (result.target.map { String(format: "≥ %.1fx", $0) } ?? "reference") + " |")
        }
        lines.append("")
    }
    if let latency = report.latency {
        lines += [
            "### Read latency while writes run",
            "",
            "\(formatCount(latency.records)) records imported with `importObjects` and compacted; "
                + "\(latency.readers) reader thread(s) of random `object(_:forKey:)` (no object cache), "
                + "\(String(format: "%.0f", latency.idleSeconds)) s alone, then "
                + "\(String(format: "%.0f", latency.writeSeconds)) s beside \(latency.writers) threads "
                + "overwriting random keys with `set(_:forKey:)` at full speed (nice \(latency.writerNice)); "
                + "write buffer \(latency.writeBufferBytes >> 20) MiB. Latencies in µs.",
            "",
            "| | ops/s | p50 | p99 | p99.9 | max |",
            "|---|---:|---:|---:|---:|---:|",
        ]
        for (name, summary) in [
            ("Reads, idle", latency.idleReads), ("Reads under writes", latency.readsUnderWrites),
            ("Writes", latency.writes),
        ] {
            lines.append(
                "| \(name) | \(formatCount(Int(summary.operationsPerSecond))) | "
                    + String(format: "%.1f | %.1f | %.1f | %.0f |", summary.p50, summary.p99, summary.p999, summary.max))
        }
        lines += ["", "Most level-0 files seen: \(latency.maximumLevelZeroFiles) (LevelDB sleeps each write 1 ms "
            + "from 8 and stops writes at 12)."]
        if let idle = latency.readerRunDelayIdle, let busy = latency.readerRunDelayUnderWrites {
            lines.append(String(
                format: "Readers runnable but waiting for a CPU (Linux schedstat): %.1f %% of the idle phase, "
                    + "%.1f %% under writes.", idle * 100, busy * 100))
        }
        lines.append("")
    }
    lines += ["### Targets", "", "| Target | Measured | Verdict |", "|---|---|---|"]
    for verdict in report.verdicts {
        lines.append("| \(verdict.target) | \(verdict.measured) | \(verdict.met ? "met" : "missed") |")
    }
    return lines.joined(separator: "\n")
}
