import ArgumentParser
import Foundation
@_spi(Inspection) import ModelStore

/// `modelstore repair NAME`: runs LevelDB's repair on a closed database, under the store's lock.
struct RepairCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "repair",
        abstract: "Repair a damaged database and report what was recovered.",
        discussion: """
            The database must not be open in another process. Repair keeps every record it can \
            read and drops damaged log records rather than returning wrong values; back up the \
            folder first if its contents matter. It then reads every record back and lists, by key, \
            those that fail their own checksum (or whose header is damaged): no repair can restore \
            their bytes, so they are kept as they are, each with the `modelstore remove` command that \
            removes it, and the command exits with 1.
            """)

    @Argument(help: "The database's name.")
    var name: String

    @OptionGroup var root: RootOptions

    func run() throws {
        let storeRoot = root.storeRoot
        try root.inspector.requireDatabase(name)
        let report = try Progress.spinning("Repairing \(name)") {
            try Inspector.retryingWhileLocked { try ModelStore.repair(named: name, in: storeRoot.url) }
        }
        RepairVerdict.removeEmptyLostFolder(of: report)
        print(Self.describe(report, files: try? FileManager.default.contentsOfDirectory(atPath: report.url.path)))
        if report.damagedRecordCount > 0 {
            throw CommandFailure(
                status: .failure,
                message: "\(Format.count(report.damagedRecordCount, "record")) cannot be trusted (kept as found); "
                    + "the report above gives the command that removes each.")
        }
    }

    /// The report, with LevelDB's closing "Some data may have been lost" (which it prints after
    /// every repair) replaced by what the report shows was lost.
    static func describe(_ report: RepairReport, files: [String]?) -> String {
        let verdict = RepairVerdict(report)
        var lines = [
            "Repaired \(report.url.path) in \(report.duration)",
            "  records readable: \(report.recordsReadable) (\(report.recordsWithDamagedHeaders) with a damaged header)",
            "  damaged log records skipped: \(report.discardedLogRecords)",
            "  files before: \(report.filesBefore.joined(separator: " "))",
            "  files after:  \((files?.sorted() ?? report.filesAfter).joined(separator: " "))",
        ]
        lines += report.levelDBLog.filter { !RepairVerdict.isClosingLine($0) }.map { "  leveldb: \($0)" }
        if verdict.nothingLost && report.damagedRecordCount == 0 {
            lines.append(
                "Nothing was lost: every log was converted, every table read back without error, and every "
                    + "record matches its checksum.")
        } else if !verdict.nothingLost {
            lines.append("Some records may have been lost:")
            lines += verdict.losses.map { "  \($0)" }
        }
        if report.damagedRecordCount > 0 {
            lines += damagedRecordLines(report)
        }
        if (files ?? report.filesAfter).contains("lost") {
            lines.append(
                "lost/ keeps the files the repair replaced or could not use (converted logs, the old MANIFEST); "
                    + "delete it once you no longer need them.")
        }
        return lines.joined(separator: "\n")
    }

    /// The records the repair kept although they cannot be trusted, by key, each with the
    /// command that removes it.
    private static func damagedRecordLines(_ report: RepairReport) -> [String] {
        let count = report.damagedRecordCount
        let (their, kept) = count == 1 ? ("its", "it was kept as it is") : ("their", "they were kept as they are")
        var lines = [
            "\(Format.count(count, "record")) cannot be trusted: no repair can restore \(their) bytes, so \(kept) "
                + "(reading one throws an error that names it). Write each key again, or remove it:"
        ]
        for record in report.damagedRecords {
            let command = ToolCommand.remove(
                databasePath: report.url.path, key: record.key, collection: record.collection)
            let removal =
                command.canBeTyped
                ? "`\(command)`"
                : "its key holds a NUL byte, which no command line can pass: remove it through the program that wrote it"
            lines.append("  \(record): " + removal)
        }
        if count > report.damagedRecords.count {
            lines.append("  … and \(count - report.damagedRecords.count) more; repair again once these are removed")
        }
        return lines
    }
}
