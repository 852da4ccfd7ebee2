import Foundation

/// Repairs a database directory that is closed in this process and locked against others.
///
/// Shared by ``ModelStore/repair(named:in:)`` and ``CorruptionPolicy/repair``.
enum DatabaseRepairer {
    /// Checks the logs, runs LevelDB's repair, and reads every record back for the report.
    ///
    /// - Precondition: the caller holds the directory's ``DirectoryLock`` and the database
    ///   is not open in this process (LevelDB's repair takes no lock of its own).
    static func repair(path: String, options: EngineOptions) throws(ModelStoreError) -> RepairReport {
        let clock = ContinuousClock()
        let started = clock.now
        let filesBefore = DatabaseFiles.names(in: path)

        var discarded = 0
        for name in filesBefore where DatabaseFiles.kind(ofName: name) == .writeAheadLog {
            discarded += try LevelDBLogScrubber.scrub(logAt: path + "/" + name)
        }
        do {
            try LevelDB.repair(path: path, options: options)
        } catch {
            throw error.storeError(path: path)
        }
        // Read before the open below rotates LOG to LOG.old.
        let levelDBLog = DatabaseFiles.infoLogMessages(in: path)
        let (records, damagedHeaders) = try countRecords(path: path, options: options)

        return RepairReport(
            url: URL(fileURLWithPath: path, isDirectory: true),
            filesBefore: filesBefore,
            filesAfter: DatabaseFiles.names(in: path),
            recordsReadable: records,
            recordsWithDamagedHeaders: damagedHeaders,
            discardedLogRecords: discarded,
            levelDBLog: levelDBLog,
            duration: clock.now - started)
    }

    /// Opens the repaired database and reads every record with checksums verified, so a
    /// repair that left damage behind fails here rather than on a later read.
    private static func countRecords(path: String, options: EngineOptions) throws(ModelStoreError) -> (Int, Int) {
        var options = options
        options.paranoidChecks = true
        do {
            let engine = try LevelDB(path: path, options: options, createIfMissing: false)
            defer { engine.close() }
            let iterator = try engine.makeIterator(snapshot: nil, fillCache: false)
            try iterator.seekToFirst()
            var records = 0
            var damagedHeaders = 0
            while let intact = try iterator.withCurrent({ _, value in RecordHeader(parsing: value) != nil }) {
                records += 1
                if !intact { damagedHeaders += 1 }
                try iterator.next()
            }
            return (records, damagedHeaders)
        } catch let failure as LevelDBFailure {
            throw failure.storeError(path: path)
        } catch {
            throw .io(path: path, message: "cannot read the repaired database: \(error)")
        }
    }
}
