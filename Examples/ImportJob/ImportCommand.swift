import ArgumentParser
import Foundation
import Logging
import ModelStore

/// `modelstore-import`: streams a large NDJSON or CSV file of customers into a ModelStore
/// database in atomic batches, then sweeps expired records and reports timings.
///
/// ```
/// modelstore-import --generate 100000 customers.ndjson     # write a sample file
/// modelstore-import customers.ndjson --root /tmp/stores     # import it
/// ```
@main
struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "modelstore-import",
        abstract: "Import a large NDJSON or CSV file of customers into a ModelStore database.",
        discussion: """
            The file is read line by line and written in atomic batches, so memory stays flat \
            whatever its size. Malformed lines are skipped and reported. After the import, \
            expired records are swept.
            """)

    @Argument(help: "The input file (.csv for CSV, anything else NDJSON).")
    var file: String

    @Option(help: ArgumentHelp("Instead of importing, write a sample file of this many customers.", valueName: "count"))
    var generate: Int?

    @Option(help: "The database to import into.")
    var name = "customers"

    @Option(help: ArgumentHelp("The directory that holds the databases (default: ModelStore's).", valueName: "path"))
    var root: String?

    @Option(help: "Customers per atomic batch.")
    var batchSize = 1_000

    @Option(help: "The database's update policy: lowest, low, middle, high, highest, never, or seconds.")
    var policy = "lowest"

    func validate() throws {
        if let generate, generate < 0 { throw ValidationError("--generate needs a count of 0 or more.") }
        if batchSize < 1 { throw ValidationError("--batch-size must be at least 1.") }
        if Self.updatePolicy(policy) == nil { throw ValidationError("unknown policy \(policy.debugDescription).") }
    }

    func run() async throws {
        let url = URL(fileURLWithPath: file)
        let format = InputFormat(inferringFrom: url)
        if let generate {
            try SampleFile.write(count: generate, to: url, format: format)
            print("Wrote \(generate) sample customers to \(url.path) (\(format.rawValue)).")
            return
        }
        try await importFile(url, format: format)
    }

    private func importFile(_ url: URL, format: InputFormat) async throws {
        let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.intValue ?? 0
        let records = try CustomerRecords(url: url, format: format)
        let store = try ModelStore(name: name, policy: Self.updatePolicy(policy)!, configuration: configuration)
        defer { try? store.close() }

        let progress = ProgressLine(totalBytes: size, bytesRead: records.reader.bytesRead)
        let report = try await store.importObjects(records, key: \.key, batchSize: batchSize) { step in
            progress.update(records: step.completed)
        }
        progress.finish()
        if let error = records.reader.readError {
            throw ImportFailure("reading \(url.path) failed after \(report.written) records: \(error)")
        }
        let rate = Double(report.written) / max(seconds(report.duration), 1e-9)
        let batches = "\(report.chunks) batch\(report.chunks == 1 ? "" : "es") of up to \(batchSize)"
        print(
            "Imported \(report.written) records from \(url.lastPathComponent) into \(name) in "
                + "\(describe(report.duration)) (\(Int(rate)) records/s, \(batches)).")
        if records.skipped.count > 0 {
            print("Skipped \(records.skipped.count) malformed line\(records.skipped.count == 1 ? "" : "s"):")
            for example in records.skipped.examples { print("  \(example)") }
        }

        let sweepStart = ContinuousClock.now
        let removed = try store.removeExpiredObjects()
        let sweepTime = ContinuousClock.now - sweepStart
        let total = try store.count()
        print(
            "Swept \(removed) expired records in \(describe(sweepTime)); \(name) now holds \(total) records "
                + "(policy \(store.policy)).")
    }

    private var configuration: ModelStore.Configuration {
        var configuration = ModelStore.Configuration()
        if let root { configuration.directory = URL(fileURLWithPath: root, isDirectory: true) }
        // Standard output is the job's report; ModelStore's own messages go to standard error.
        var logger = Logger(label: "modelstore-import", factory: { StreamLogHandler.standardError(label: $0) })
        logger.logLevel = .warning
        configuration.logger = logger
        return configuration
    }

    private static func updatePolicy(_ text: String) -> UpdatePolicy? {
        switch text.lowercased() {
        case "lowest": return .lowest
        case "low": return .low
        case "middle": return .middle
        case "high": return .high
        case "highest": return .highest
        case "never": return .never
        default: return TimeInterval(text).flatMap { $0.isFinite && $0 > 0 ? .custom($0) : nil }
        }
    }

    private func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    private func describe(_ duration: Duration) -> String {
        String(format: "%.3f s", seconds(duration))
    }
}
