import ArgumentParser
import Foundation
import Logging
import ModelStore

/// `modelstore-import`: streams a large NDJSON or CSV file of customers into a ModelStore
/// database in atomic batches, then sweeps expired records and reports timings.
///
/// ```
/// modelstore-import --generate 100000 /tmp/customers.ndjson   # write a sample file
/// modelstore-import /tmp/customers.ndjson --root /tmp/stores   # import it
/// ```
struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "modelstore-import",
        abstract: "Import a large NDJSON or CSV file of customers into a ModelStore database.",
        discussion: """
            The file is read one record at a time and written in atomic batches, so memory stays \
            flat whatever its size. The file must be UTF-8: reading stops at the first line that is \
            not, and the job fails naming it. Malformed lines (a CSV line with more or fewer columns \
            than the header, a JSON line that is not a customer) are skipped and reported, as are \
            blank lines and records that replaced one with the same id. After the import, expired \
            records are swept. Exit codes: 0 success, 1 failure, 2 usage error.
            """)

    @Argument(help: "The input file (.csv for CSV, anything else NDJSON); with --generate, the file to write.")
    var file: String

    // `.unconditional` so a negative number reaches validate() instead of being read as an option.
    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Instead of importing, write a sample file of this many customers to <file>. Only that path is "
                + "written (relative paths are relative to the current directory): name one outside the "
                + "repository, such as /tmp/customers.ndjson.",
            valueName: "count"))
    var generate: Int?

    @Option(help: "The database to import into.")
    var name = "customers"

    @Option(help: ArgumentHelp("The directory that holds the databases (default: ModelStore's).", valueName: "path"))
    var root: String?

    @Option(parsing: .unconditional, help: "Customers per atomic batch.")
    var batchSize = 1_000

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "The database's update policy: lowest, low, middle, high, highest, never, or a positive number of "
                + "seconds."))
    var policy = "lowest"

    func validate() throws {
        if let generate, generate < 0 {
            throw ValidationError("--generate needs a count of 0 or more; got \(generate).")
        }
        if batchSize < 1 { throw ValidationError("--batch-size must be at least 1; got \(batchSize).") }
        if Self.updatePolicy(policy) == nil {
            throw ValidationError(
                "unknown policy \(policy.debugDescription); use lowest, low, middle, high, highest, never, "
                    + "or a positive number of seconds.")
        }
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
        let size = try Self.inputSize(of: url)
        let records = try CustomerRecords(url: url, format: format)
        let store = try ModelStore(name: name, policy: Self.updatePolicy(policy)!, configuration: configuration)
        defer { try? store.close() }

        // Records that replace one with the same key, counted without remembering every id
        // (which would make memory grow with the file): written minus the keys added.
        let before = try store.count()
        let progress = ProgressLine(totalBytes: size, bytesRead: records.bytesRead)
        let report = try await store.importObjects(records, key: \.key, batchSize: batchSize) { step in
            progress.update(records: step.completed)
        }
        progress.finish()
        let replaced = max(0, report.written - (try store.count() - before))
        let tally = records.tally
        if let stop = tally.stop {
            throw ImportFailure(
                "\(url.path): \(stop); the \(report.written) records before it were imported into \(name), "
                    + "none after it.")
        }
        let rate = Double(report.written) / max(seconds(report.duration), 1e-9)
        let batches = "\(report.chunks) batch\(report.chunks == 1 ? "" : "es") of up to \(batchSize)"
        print(
            "Imported \(report.written) records from \(url.lastPathComponent) into \(name) in "
                + "\(describe(report.duration)) (\(Int(rate)) records/s, \(batches)).")
        if replaced > 0 {
            print(
                "Replaced \(plural(replaced, "record")) with the same id (repeated in the file or already in "
                    + "\(name)); the last one written wins.")
        }
        if tally.blankLines > 0 {
            print("Ignored \(plural(tally.blankLines, "blank line")).")
        }
        if tally.skipped > 0 {
            print("Skipped \(plural(tally.skipped, "malformed line")):")
            for example in tally.examples { print("  \(example)") }
        }

        let sweepStart = ContinuousClock.now
        let removed = try store.removeExpiredObjects()
        let sweepTime = ContinuousClock.now - sweepStart
        let total = try store.count()
        print(
            "Swept \(removed) expired records in \(describe(sweepTime)); \(name) now holds \(total) records "
                + "(policy \(store.policy)).")
    }

    /// The input's size in bytes, for progress.
    ///
    /// - Throws: ``ImportFailure`` with a one-line message when there is no readable file.
    private static func inputSize(of url: URL) throws -> Int {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw ImportFailure("no file at \(url.path); pass the path of an NDJSON or CSV file")
        }
        guard !isDirectory.boolValue else { throw ImportFailure("\(url.path) is a directory, not a file") }
        guard FileManager.default.isReadableFile(atPath: url.path) else {
            throw ImportFailure("\(url.path) is not readable; check its permissions")
        }
        return (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.intValue ?? 0
    }

    private func plural(_ count: Int, _ noun: String) -> String {
        "\(count) \(noun)\(count == 1 ? "" : "s")"
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
        default: return TimeInterval(text).flatMap { TimeBounds.isValidLifetime($0) ? .custom($0) : nil }
        }
    }

    private func seconds(_ duration: Duration) -> Double {
        TimeBounds.seconds(duration)
    }

    private func describe(_ duration: Duration) -> String {
        String(format: "%.3f s", seconds(duration))
    }
}
