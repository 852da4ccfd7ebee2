import Foundation
import ModelStore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Whether a repair lost anything, decided from its ``RepairReport`` rather than from
/// LevelDB's closing line, which says "Some data may have been lost" after every repair,
/// even of a healthy database.
struct RepairVerdict {
    /// Why the repair may have lost records; empty when nothing was lost.
    let losses: [String]

    /// Whether every record came through: no damaged log record skipped, and LevelDB reported
    /// every log converted and every table read without error. (Records that came through but
    /// fail their checksum or have a damaged header are the report's `damagedRecords`, listed
    /// by key on their own.)
    var nothingLost: Bool { losses.isEmpty }

    init(_ report: RepairReport) {
        var losses: [String] = []
        if report.discardedLogRecords > 0 {
            losses.append(Format.count(report.discardedLogRecords, "damaged log record") + " skipped")
        }
        losses += report.levelDBLog.filter(Self.reportsLoss).map { "LevelDB: \($0)" }
        self.losses = losses
    }

    /// LevelDB's closing line of every repair, which the verdict replaces.
    static func isClosingLine(_ line: String) -> Bool {
        line.hasPrefix("**** Repaired leveldb")
    }

    /// Whether a line of LevelDB's repair log reports something dropped or unreadable.
    ///
    /// LevelDB 1.23's repair logs "Log #N: dropping ..." and "... ignoring ..." for damaged
    /// log records, "Table #N: dropped ..." or an entry count followed by an error for damaged
    /// tables, and an error status after "Archiving" or a conversion. Lines that end in "OK"
    /// report work that succeeded.
    static func reportsLoss(_ line: String) -> Bool {
        if isClosingLine(line) { return false }
        let lowered = line.lowercased()
        if ["dropping", "dropped", "ignoring", "unparsable", "corruption", "error"].contains(where: lowered.contains) {
            return true
        }
        // "Log #3: 50 ops saved to Table #4 OK", "Table #4: 50 entries OK", "Archiving …: OK".
        return !line.hasSuffix("OK")
    }

    /// Removes the `lost` folder LevelDB's repair may create, but only when it is empty and
    /// was not there before this repair: anything in it, or a folder that predates the
    /// repair, is the user's to look at.
    static func removeEmptyLostFolder(of report: RepairReport) {
        guard !report.filesBefore.contains("lost") else { return }
        let lost = report.url.appendingPathComponent("lost", isDirectory: true)
        guard let contents = try? FileManager.default.contentsOfDirectory(atPath: lost.path), contents.isEmpty else {
            return
        }
        // rmdir, not removeItem: it refuses a folder that something filled in the meantime.
        _ = rmdir(lost.path)
    }
}
