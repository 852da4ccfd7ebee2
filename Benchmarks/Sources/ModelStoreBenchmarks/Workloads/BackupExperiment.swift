import Foundation
import ModelStore

/// Backup and restore throughput: `records` of the benchmark's profile (JSON codec, ModelStore's
/// default LevelDB settings) in one database, compacted; then, each round, a backup of it to a
/// new folder (`store.backup(to:)`), a backup while one writer overwrites random records in
/// batches of 100, and a restore of the first backup under a new name
/// (`ModelStore.restore(from:named:in:)`, which copies the files and reads every record back).
/// MB are 10^6 bytes of keys and values; each cell is the median of the rounds.
func runBackupExperiment(records: Int, rounds: Int, directory: String) throws -> String {
    let corpus = ProfileCorpus(count: records)
    var configuration = ModelStore.Configuration()
    configuration.directory = URL(fileURLWithPath: directory + "/root", isDirectory: true)
    let store = try ModelStore(name: "source", policy: .never, configuration: configuration)
    defer { try? store.close() }
    var number = 0
    while number < records {
        let end = min(records, number + 1_000)
        try store.write { batch in
            for index in number..<end { try batch.set(corpus.profile(index), forKey: ProfileCorpus.key(index)) }
        }
        number = end
    }
    try store.compact()

    var rows: [String: [(seconds: Double, records: Int, bytes: UInt64)]] = [:]
    let clock = ContinuousClock()
    func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
    }
    for round in 0..<rounds {
        let backups = directory + "/backups-\(round)"
        let quiet = try store.backup(to: URL(fileURLWithPath: backups + "/quiet", isDirectory: true))
        rows["backup, idle store", default: []].append((seconds(quiet.duration), quiet.records, quiet.bytes))

        let stop = BenchmarkFlag()
        let writer = Thread {
            var random = SplitMix64(seed: UInt64(round) + 1)
            while !stop.isSet {
                _ = try? store.write { batch in
                    for _ in 0..<100 {
                        let index = Int(random.next() % UInt64(records))
                        try batch.set(corpus.profile(index), forKey: ProfileCorpus.key(index))
                    }
                }
            }
        }
        writer.start()
        let busy = try store.backup(to: URL(fileURLWithPath: backups + "/busy", isDirectory: true))
        stop.set()
        while !writer.isFinished { usleep(1_000) }
        rows["backup, one writer running", default: []].append((seconds(busy.duration), busy.records, busy.bytes))

        let started = clock.now
        let restored = try ModelStore.restore(
            from: quiet.url, named: "restored-\(round)", in: configuration.directory)
        rows["restore (copy files, verify every record)", default: []].append(
            (seconds(clock.now - started), restored.records, restored.bytes))
        try? FileManager.default.removeItem(atPath: backups)
        try ModelStore.deleteDatabase(named: "restored-\(round)", in: configuration.directory)
    }

    var lines = [
        "### Backup and restore, \(records) records (median of \(rounds) rounds)",
        "",
        "| Operation | Seconds | Records/s | MB/s |",
        "|---|---:|---:|---:|",
    ]
    for title in ["backup, idle store", "backup, one writer running", "restore (copy files, verify every record)"] {
        let samples = rows[title] ?? []
        let time = median(samples.map(\.seconds)) ?? 0
        let recordsPerSecond = median(samples.map { Double($0.records) / $0.seconds }) ?? 0
        let megabytesPerSecond = median(samples.map { Double($0.bytes) / 1e6 / $0.seconds }) ?? 0
        lines.append(
            "| \(title) | " + String(format: "%.2f", time) + " | " + String(format: "%.0f", recordsPerSecond)
                + " | " + String(format: "%.1f", megabytesPerSecond) + " |")
    }
    let bytes = rows["backup, idle store"]?.first?.bytes ?? 0
    lines.append("")
    lines.append("Entries copied per backup: \(rows["backup, idle store"]?.first?.records ?? 0), "
        + String(format: "%.1f", Double(bytes) / 1e6) + " MB of keys and values.")
    return lines.joined(separator: "\n")
}

/// A flag the writer thread reads.
private final class BenchmarkFlag: @unchecked Sendable {
    // @unchecked: `value` is only touched under `lock`.
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.lock(); defer { lock.unlock() }; return value }
    func set() { lock.lock(); value = true; lock.unlock() }
}
