public import Foundation

/// What ``ModelStore/backup(to:progress:)-5q0xc`` or
/// ``ModelStore/restore(from:named:in:replacingExisting:progress:)-5ol5f`` copied.
///
/// ```swift
/// let report = try store.backup(to: URL(fileURLWithPath: "/backups/userdb-monday"))
/// print(report)   // 12000 records, 4.1 MB in 0.21 s to /backups/userdb-monday
/// ```
public struct BackupReport: Sendable, Hashable, CustomStringConvertible {
    /// The database that was written: the backup, or the restored database.
    public var url: URL

    /// How many entries were copied: every record, expired or not, and ModelStore's own
    /// entries (recorded policies, the tag index, compression dictionaries).
    public var records: Int

    /// The bytes of those entries' keys and values.
    public var bytes: UInt64

    /// How long it took, from the snapshot (or the first file read) to the rename into place.
    public var duration: Duration

    /// One line: records, bytes, time and where.
    public var description: String {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
        let megabytes = Double(bytes) / 1_000_000
        return "\(records) records, \(String(format: "%.1f", megabytes)) MB in \(String(format: "%.2f", seconds)) s "
            + "to \(url.path)"
    }
}

/// How far a backup or a restore has got, reported to its `progress` closure.
public struct BackupProgress: Sendable, Hashable {
    /// Entries copied (a backup) or read back and verified (a restore) so far.
    public var records: Int

    /// The bytes of those entries' keys and values.
    public var bytes: UInt64

    /// An estimate of the bytes the whole job handles, for a progress bar: LevelDB's estimate
    /// of the database's size (a backup), or the size of the backup's files (a restore).
    /// Compressed sizes, so ``bytes`` may pass it; nil when unknown.
    public var estimatedTotalBytes: UInt64?
}
