import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Repairs a database directory that is closed in this process and locked against others.
///
/// Shared by ``ModelStore/repair(named:in:)`` and ``CorruptionPolicy/repair``.
enum DatabaseRepairer {
    /// Checks the logs, runs LevelDB's repair, and reads every record back for the report.
    ///
    /// Crash-safe: the repair works under a journal and a hard-link backup
    /// (``RepairJournal``), so a process killed at any point loses nothing a finished repair
    /// would have kept; the next open or repair finds the journal, restores the files and
    /// repairs again.
    ///
    /// - Precondition: the caller holds the directory's ``DirectoryLock`` and the database
    ///   is not open in this process.
    static func repair(path: String, options: EngineOptions) throws(ModelStoreError) -> RepairReport {
        let clock = ContinuousClock()
        let started = clock.now
        // An interrupted reset is finished first: the repair would bring back part of what
        // it was deleting. (Before our LevelDB lock: the resetter takes its own.)
        _ = try DatabaseResetter.finishInterruptedReset(path: path)
        // LevelDB's repair takes no lock of its own: take LevelDB's LOCK first, so a database
        // that another LevelDB client (not ModelStore) holds is refused before any change.
        let levelDBLock = try LevelDBFileLock(directory: path)
        defer { levelDBLock.release() }

        if RepairJournal.isPending(in: path) {
            try RepairJournal.restore(in: path)
            try removeScrubbedCopies(in: path)
        } else {
            try removeLeftovers(in: path)
        }
        let filesBefore = DatabaseFiles.names(in: path).filter { !isOurs($0) }
        if !RepairJournal.isPending(in: path) {
            try RepairJournal.begin(in: path)
        }

        var discarded = 0
        do throws(ModelStoreError) {
            for name in try fileOperation({ try DatabaseFiles.listing(of: path) }) where DatabaseFiles.kind(ofName: name) == .writeAheadLog {
                discarded += try fileOperation { try LevelDBLogScrubber.scrub(logAt: path + "/" + name) }
            }
            CrashPoint.repairScrubbed.reached()
            do {
                try LevelDB.repair(path: path, options: options)
            } catch {
                throw error.storeError(path: path)
            }
        } catch {
            // Roll back: put the files back as they were and drop the journal, so a repair
            // that cannot succeed does not make every later open fail the same way. Killed
            // during the rollback, the journal is still there and the next open or repair
            // restores and tries again.
            try RepairJournal.restore(in: path)
            try RepairJournal.commit(in: path)
            throw error
        }
        CrashPoint.repairRepaired.reached()
        try fileOperation { try DatabaseFiles.syncLevelDBFiles(in: path) }
        try RepairJournal.commit(in: path)

        // Read before the open below rotates LOG to LOG.old.
        let levelDBLog = DatabaseFiles.infoLogMessages(in: path)
        // Nothing changes files from here on. Release LevelDB's LOCK before LevelDB opens the
        // database in this process to count the records: our lock would make that open fail
        // as `locked` (see LevelDBFileLock).
        levelDBLock.release()
        let scan = try readBack(path: path, options: options)

        return RepairReport(
            url: URL(fileURLWithPath: path, isDirectory: true),
            filesBefore: filesBefore,
            filesAfter: DatabaseFiles.names(in: path),
            recordsReadable: scan.records,
            recordsWithDamagedHeaders: scan.damagedHeaders,
            discardedLogRecords: discarded,
            levelDBLog: levelDBLog,
            duration: clock.now - started,
            damagedRecords: scan.damaged,
            damagedRecordCount: scan.damagedCount)
    }

    /// Finishes what an interrupted repair left at `path` before the database is opened:
    /// restores and repairs again if the journal is there, and removes a stale backup or
    /// scrubbed-log copy otherwise. Returns the report of a repair it finished, if any.
    ///
    /// - Precondition: as for ``repair(path:options:)``.
    static func finishInterruptedRepair(path: String, options: EngineOptions) throws(ModelStoreError) -> RepairReport? {
        if RepairJournal.isPending(in: path) {
            return try repair(path: path, options: options)
        }
        // Scrubbed-log copies only exist while the journal does; a backup may outlive it.
        var info = stat()
        if lstat(path + "/" + RepairJournal.backupName, &info) == 0 {
            let levelDBLock = try LevelDBFileLock(directory: path)
            defer { levelDBLock.release() }
            try removeLeftovers(in: path)
        }
        return nil
    }

    /// The repair's own files, which the report does not list.
    private static func isOurs(_ name: String) -> Bool {
        name == RepairJournal.journalName || name == RepairJournal.backupName
            || name.utf8.starts(with: LevelDBLogScrubber.copyPrefix.utf8)
    }

    /// Removes a backup without a journal and scrubbed-log copies never renamed into place.
    private static func removeLeftovers(in path: String) throws(ModelStoreError) {
        try RepairJournal.removeBackup(in: path)
        try removeScrubbedCopies(in: path)
    }

    private static func removeScrubbedCopies(in path: String) throws(ModelStoreError) {
        for name in DatabaseFiles.names(in: path) where name.utf8.starts(with: LevelDBLogScrubber.copyPrefix.utf8) {
            guard unlink(path + "/" + name) == 0 || errno == ENOENT else {
                throw .io(path: path + "/" + name, message: "cannot remove: \(StoreDirectory.lastErrorMessage())")
            }
        }
    }

    /// What reading the repaired database back found.
    private struct ReadBack {
        var records = 0
        var damagedHeaders = 0
        var damaged: [RepairReport.DamagedRecord] = []
        var damagedCount = 0

        /// Counts the record `value` stored under the physical key `key`, and notes it when its
        /// envelope does not parse or its bytes fail its own checksum (format-1 records have
        /// none to fail).
        mutating func read(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) {
            records += 1
            let damage: RepairReport.DamagedRecord.Damage
            if let header = RecordHeader(parsing: value) {
                guard !header.checksumMatches(value: value, key: key) else { return }
                damage = .checksumMismatch
            } else {
                damagedHeaders += 1
                damage = .damagedHeader
            }
            damagedCount += 1
            if damaged.count < RepairReport.damagedRecordListLimit, let (space, name) = KeySpace.split(key) {
                damaged.append(.init(key: name, collection: space.collection, damage: damage))
            }
        }
    }

    /// Opens the repaired database and reads every record with LevelDB's block checksums
    /// verified, so a repair that left damage behind fails here rather than on a later read,
    /// and checks each record's envelope and its own checksum, so records whose bytes are
    /// wrong are reported by key. Models are not decoded: that needs their types.
    private static func readBack(path: String, options: EngineOptions) throws(ModelStoreError) -> ReadBack {
        var options = options
        options.paranoidChecks = true
        do {
            let engine = try LevelDB(path: path, options: options, createIfMissing: false)
            defer { engine.close() }
            let iterator = try engine.makeIterator(snapshot: nil, fillCache: false)
            try iterator.seekToFirst()
            var scan = ReadBack()
            // Every collection's records, up to the first system record (0xFF…, sorted last):
            // those are not records of a model and have no record header (see KeySpace).
            while let isRecord = try iterator.withCurrent({ key, value -> Bool in
                guard key.first != KeySpace.systemMarker else { return false }
                scan.read(key: key, value: value)
                return true
            }), isRecord {
                try iterator.next()
            }
            return scan
        } catch let failure as LevelDBFailure {
            throw failure.storeError(path: path)
        } catch {
            throw .io(path: path, message: "cannot read the repaired database: \(error)")
        }
    }
}
