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

    /// The records the repair read back that cannot be trusted, in key order (the first
    /// ``damagedRecordListLimit``; ``damagedRecordCount`` counts them all): those that fail their
    /// own checksum, and those with a damaged header (also counted in
    /// ``recordsWithDamagedHeaders``).
    ///
    /// The repair keeps them as they are: LevelDB's files are sound, only the record's own bytes
    /// are wrong, and no repair can bring them back, so dropping them would lose the key without
    /// a word. Reading one throws ``ModelStoreError/corrupted(path:message:)`` (or
    /// ``ModelStoreError/decodingFailed(key:type:message:)`` for a damaged header). Write each
    /// key again, or remove it with `removeObject(forKey:)` (on its collection, if it has one) or
    /// `modelstore remove NAME KEY [--collection C]`.
    public var damagedRecords: [DamagedRecord]

    /// How many records the repair read back that cannot be trusted, listed or not.
    public var damagedRecordCount: Int

    /// How many damaged records ``damagedRecords`` lists at most, so a report stays small
    /// whatever the database holds.
    public static let damagedRecordListLimit = 10_000

    /// A record that cannot be trusted: its key, its collection, and what is wrong with it.
    public struct DamagedRecord: Sendable, Hashable, CustomStringConvertible {
        /// What is wrong with a damaged record.
        public enum Damage: String, Sendable, Hashable {
            /// Its bytes fail its own checksum (damaged, or copied from another key).
            case checksumMismatch
            /// Its envelope does not parse (damaged, or from an unknown format version).
            case damagedHeader
        }

        /// The record's key.
        public var key: String
        /// The collection it belongs to; nil for the store's own keys.
        public var collection: String?
        /// What is wrong with it.
        public var damage: Damage

        /// Describes a damaged record.
        public init(key: String, collection: String?, damage: Damage) {
            self.key = key
            self.collection = collection
            self.damage = damage
        }

        /// The key (and collection) and the damage, such as `"user:42" in collection "sessions"
        /// (fails its checksum)`.
        public var description: String {
            let place = collection.map { " in collection \($0.debugDescription)" } ?? ""
            let what = damage == .checksumMismatch ? "fails its checksum" : "has a damaged header"
            return "\(key.debugDescription)\(place) (\(what))"
        }
    }

    /// Creates a report.
    public init(
        url: URL, filesBefore: [String], filesAfter: [String], recordsReadable: Int,
        recordsWithDamagedHeaders: Int, discardedLogRecords: Int, levelDBLog: [String], duration: Duration,
        damagedRecords: [DamagedRecord] = [], damagedRecordCount: Int? = nil
    ) {
        self.url = url
        self.filesBefore = filesBefore
        self.filesAfter = filesAfter
        self.recordsReadable = recordsReadable
        self.recordsWithDamagedHeaders = recordsWithDamagedHeaders
        self.discardedLogRecords = discardedLogRecords
        self.levelDBLog = levelDBLog
        self.duration = duration
        self.damagedRecords = damagedRecords
        self.damagedRecordCount = damagedRecordCount ?? damagedRecords.count
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
        if damagedRecordCount > 0 {
            lines.append("  damaged records, kept as they are (reading one throws): \(damagedRecordCount)")
            lines.append(contentsOf: damagedRecords.map { "    \($0)" })
            if damagedRecordCount > damagedRecords.count {
                lines.append("    … and \(damagedRecordCount - damagedRecords.count) more")
            }
        }
        return lines.joined(separator: "\n")
    }
}
