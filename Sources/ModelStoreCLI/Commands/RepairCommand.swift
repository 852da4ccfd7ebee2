import ArgumentParser
import Foundation
import ModelStore

/// `modelstore repair NAME`: runs LevelDB's repair on a closed database, under the store's lock.
struct RepairCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "repair",
        abstract: "Repair a damaged database and report what was recovered.",
        discussion: """
            The database must not be open in another process. Repair keeps every record it can \
            read and drops damaged log records rather than returning wrong values; back up the \
            folder first if its contents matter.
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
        if verdict.nothingLost {
            lines.append("Nothing was lost: every log was converted and every table read back without error.")
        } else {
            lines.append("Some records may have been lost:")
            lines += verdict.losses.map { "  \($0)" }
        }
        if (files ?? report.filesAfter).contains("lost") {
            lines.append(
                "lost/ keeps the files the repair replaced or could not use (converted logs, the old MANIFEST); "
                    + "delete it once you no longer need them.")
        }
        return lines.joined(separator: "\n")
    }
}
