public import Foundation

/// What ``ModelStore/backup(to:progress:)-5q0xc`` or
/// ``ModelStore/restore(from:named:in:replacingExisting:progress:)-5ol5f`` copied.
///
/// ```swift
/// let report = try store.backup(to: URL(fileURLWithPath: "/backups/userdb-monday"))
/// print(report)   // 12000 records and 1 entry of ModelStore's own, 4.1 MB in 0.21 s to /backups/userdb-monday
/// ```
public struct BackupReport: Sendable, Hashable, CustomStringConvertible {
    /// The database that was written: the backup, or the restored database.
    public var url: URL

    /// How many records were copied: every record of the store's own keys and of every
    /// collection, expired or not (what `modelstore list` shows as RECORDS). ModelStore's own
    /// entries are counted apart, in ``systemEntries``.
    public var records: Int

    /// How many of ModelStore's own entries were copied with the records: recorded policies, the
    /// tag index, index definitions and entries, compression dictionaries, the encryption
    /// marker. They are what makes the copy the same database, and are never records.
    public var systemEntries: Int

    /// The bytes of the keys and values copied: the records' and ModelStore's own entries'.
    public var bytes: UInt64

    /// How long it took, from the snapshot (or the first file read) to the rename into place.
    public var duration: Duration

    /// One line: records, ModelStore's own entries, bytes, time and where.
    public var description: String {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
        let megabytes = Double(bytes) / 1_000_000
        let own = "\(systemEntries) \(systemEntries == 1 ? "entry" : "entries") of ModelStore's own"
        return "\(records) records and \(own), \(String(format: "%.1f", megabytes)) MB in "
            + "\(String(format: "%.2f", seconds)) s to \(url.path)"
    }
}

/// How far a backup or a restore has got, reported to its `progress` closure.
public struct BackupProgress: Sendable, Hashable {
    /// Records copied (a backup) or read back and verified (a restore) so far, counted as
    /// ``BackupReport/records`` counts them.
    public var records: Int

    /// ModelStore's own entries copied or verified so far (see ``BackupReport/systemEntries``).
    public var systemEntries: Int

    /// The bytes of the keys and values copied or verified so far.
    public var bytes: UInt64

    /// An estimate of the bytes the whole job handles, for a progress bar: LevelDB's estimate
    /// of the database's size (a backup), or the size of the backup's files (a restore). Nil
    /// when unknown (LevelDB does not estimate what is still in its write buffer, so a database
    /// written since it was opened can estimate 0). Compressed sizes can be smaller than what
    /// is copied: the estimate is then raised to ``bytes``, so it is never below it.
    public var estimatedTotalBytes: UInt64?

    /// Progress at the start: nothing copied, and `estimate` (nil or 0: unknown).
    init(estimatedTotalBytes estimate: UInt64?) {
        records = 0
        systemEntries = 0
        bytes = 0
        estimatedTotalBytes = estimate.flatMap { $0 > 0 ? $0 : nil }
    }

    /// Counts one more chunk, keeping the estimate at or above what was copied.
    mutating func add(records: Int, systemEntries: Int, bytes: UInt64) {
        self.records += records
        self.systemEntries += systemEntries
        self.bytes += bytes
        if let estimate = estimatedTotalBytes, estimate < self.bytes { estimatedTotalBytes = self.bytes }
    }

    /// Sets the estimate once it is known (nil or 0: unknown), never below what was copied.
    mutating func estimate(_ total: UInt64?) {
        estimatedTotalBytes = total.flatMap { $0 > 0 ? max($0, bytes) : nil }
    }
}
