public import Foundation

/// What ``ModelStore/repair(named:in:)-82t4e`` did to a database.
///
/// ```swift
/// let report = try ModelStore.repair(named: "userdb")
/// print(report)   // files before and after, records readable, LevelDB's own account
/// ```
public struct RepairReport: Sendable, Hashable {
    /// The repaired database's directory.
    public var url: URL

    /// The names of the entries in the database's directory before the repair, sorted.
    public var filesBefore: [String]

    /// The names of the entries in the database's directory after the repair, sorted.
    /// LevelDB moves files it could not use into a `lost` folder instead of deleting them.
    public var filesAfter: [String]

    /// How many records the repaired database holds (every one read back with its
    /// checksums verified).
    public var recordsReadable: Int

    /// How many of those records have a damaged ModelStore header; reading them throws
    /// ``ModelStoreError/decodingFailed(key:type:message:)``, so you may want to remove them.
    public var recordsWithDamagedHeaders: Int

    /// How many damaged write-ahead-log records ModelStore found before the repair and
    /// made LevelDB skip. LevelDB's repair replays logs without checking them, so these
    /// would otherwise have come back with wrong contents. Each one also drops the records
    /// after it in the same 32 KiB log block, as LevelDB's normal recovery does.
    public var discardedLogRecords: Int

    /// LevelDB's own account of the repair, from its `LOG` file, without timestamps: for
    /// example `Log #8: 100 ops saved to Table #9 OK` or `Table #5: 3000 entries OK`.
    public var levelDBLog: [String]

    /// How long the repair took, including reading every record back.
    public var duration: Duration

    /// Creates a report.
    public init(
        url: URL, filesBefore: [String], filesAfter: [String], recordsReadable: Int,
        recordsWithDamagedHeaders: Int, discardedLogRecords: Int, levelDBLog: [String], duration: Duration
    ) {
        self.url = url
        self.filesBefore = filesBefore
        self.filesAfter = filesAfter
        self.recordsReadable = recordsReadable
        self.recordsWithDamagedHeaders = recordsWithDamagedHeaders
        self.discardedLogRecords = discardedLogRecords
        self.levelDBLog = levelDBLog
        self.duration = duration
    }
}

extension RepairReport: CustomStringConvertible {
    /// A multi-line summary that reads well in a log or a terminal.
    public var description: String {
        var lines = [
            "Repaired \(url.path) in \(duration)",
            "  records readable: \(recordsReadable) (\(recordsWithDamagedHeaders) with a damaged header)",
            "  damaged log records skipped: \(discardedLogRecords)",
            "  files before: \(filesBefore.joined(separator: " "))",
            "  files after:  \(filesAfter.joined(separator: " "))",
        ]
        lines.append(contentsOf: levelDBLog.map { "  leveldb: \($0)" })
        return lines.joined(separator: "\n")
    }
}
