import Foundation

/// Writes a backup: every entry a LevelDB snapshot of an open database sees, copied byte for
/// byte into a new database built in a staging folder next to the destination, then renamed
/// into place (see ``StagedDatabase``).
///
/// Entries are copied as they are stored: records keep their envelopes (and whatever the
/// record encoder sealed in them), and ModelStore's own entries (recorded policies, the tag
/// index, compression dictionaries) come along, so the backup opens as the same database.
enum DatabaseBackup {
    /// Entries per read from the snapshot, and the bytes after which a batch is written.
    static let chunkSize = 4_096
    static let batchBytes = 4 << 20

    /// Writes the backup of `database` to the folder `destination`.
    ///
    /// - Throws: ``ModelStoreError/alreadyExists(path:)`` when something is at `destination`;
    ///   ``ModelStoreError/invalidName(name:reason:)`` when its last component is not a database
    ///   name; ``ModelStoreError/io(path:message:)``; what reading the snapshot throws.
    static func write(
        _ database: OpenDatabase, to destination: URL, progress: (BackupProgress) -> Void
    ) throws(ModelStoreError) -> BackupReport {
        let clock = ContinuousClock()
        let started = clock.now
        let (parent, name) = try place(destination)
        let target = parent + "/" + name
        guard StoreDirectory.kind(of: target) == .missing else { throw .alreadyExists(path: target) }

        let view = try SnapshotView(database: database)
        defer { view.close() }
        let estimate = try? database.run { engine in try StoredPolicies.approximateSize(start: [], limit: [0xFF, 0xFF, 0xFF], in: engine) }
        let staged = try StagedDatabase(in: parent)
        defer { staged.finish() }

        var copied = BackupProgress(estimatedTotalBytes: estimate)
        do {
            var options = database.options
            // One large memtable: the copy arrives in key order, and fewer flushes mean fewer
            // level-0 files for LevelDB to compact while it writes.
            options.writeBufferSize = max(options.writeBufferSize, 32 << 20)
            let copy = try LevelDB(path: staged.path, options: options, createIfMissing: true)
            defer { copy.close() }
            // Without filling the block cache: the store's readers keep theirs.
            let iterator = try database.run { engine in
                try engine.makeIterator(snapshot: try view.current(), fillCache: false)
            }
            try iterator.seekToFirst()
            let batch = LevelDBWriteBatch()
            while true {
                var batchBytes = 0
                var systemEntries = 0
                let (seen, _) = try iterator.scanForward(limit: chunkSize) { key, value in
                    batch.put(key: key, value: value)
                    batchBytes += key.count + value.count
                    if key.first == KeySpace.systemMarker { systemEntries += 1 }
                    return true
                }
                if seen > 0 {
                    try copy.write(batch, sync: false)
                    batch.clear()
                    copied.add(records: seen - systemEntries, systemEntries: systemEntries, bytes: UInt64(batchBytes))
                    progress(copied)
                }
                if seen < chunkSize { break }
            }
            // Every record into table files before the copy closes: LevelDB's recovery treats a
            // log cut short (a copy to a full disk, an interrupted transfer) as a crash and drops
            // its tail without a word, while a table cut short or missing fails the restore's
            // read-back. A compaction of a range past every key only flushes the memtable.
            try copy.flushMemtable()
        } catch let error as ModelStoreError {
            throw error
        } catch let failure as LevelDBFailure {
            throw failure.storeError(path: staged.path)
        } catch is EngineClosed {
            // The store's database was closed under the backup's iterator (a restore replaced it,
            // or its last store closed): `closed`, as the store's own calls say, never `io`.
            throw database.closedError
        } catch {
            throw .io(path: target, message: "cannot write the backup: \(error)")
        }
        try staged.sync()
        CrashPoint.stagingFilled.reached()
        guard try staged.install(at: target) else { throw .alreadyExists(path: target) }
        return BackupReport(
            url: URL(fileURLWithPath: target, isDirectory: true), records: copied.records,
            systemEntries: copied.systemEntries, bytes: copied.bytes, duration: clock.now - started)
    }

    /// The canonical folder that will hold `url` (created if missing) and the name in it, which
    /// must be a valid database name so the result opens as a database.
    static func place(_ url: URL) throws(ModelStoreError) -> (parent: String, name: String) {
        // Not `standardizedFileURL`: it removes `..` lexically; the root check resolves it as the
        // file system does. A last component of `.` or `..` is not a database name.
        let name = url.lastPathComponent
        try DatabaseName.validate(name)
        guard let parent = try StoreDirectory.canonicalRoot(url.deletingLastPathComponent(), create: true) else {
            throw .io(path: url.path, message: "the folder to hold it does not exist")
        }
        return (parent, name)
    }
}
