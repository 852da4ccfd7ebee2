import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Installs a backup under a name: copies its files into a staging folder in the root, opens
/// the copy and reads every entry back with every checksum verified, then moves it into place
/// (see ``StagedDatabase``). The backup itself is only read.
enum DatabaseRestore {
    /// Restores the database folder `source` as `name` under `directory`.
    static func restore(
        from source: URL, named name: String, in directory: URL, replacingExisting: Bool,
        progress: (BackupProgress) -> Void
    ) throws(ModelStoreError) -> BackupReport {
        let clock = ContinuousClock()
        let started = clock.now
        try DatabaseName.validate(name)
        // The source's folder resolved as the file system does (it may itself be a database's
        // folder: then the source is no database, which `kind` says below).
        guard let resolved = realpath(source.deletingLastPathComponent().path, nil) else {
            throw .notAModelStore(path: source.path)
        }
        let sourcePath = String(cString: resolved) + "/" + source.lastPathComponent
        free(resolved)
        guard StoreDirectory.kind(of: sourcePath) == .database else { throw .notAModelStore(path: sourcePath) }
        guard let root = try StoreDirectory.canonicalRoot(directory, create: true) else {
            throw .io(path: directory.path, message: "the root directory does not exist")
        }
        let target = root + "/" + name
        try checkTarget(target, replacingExisting: replacingExisting)

        let staged = try StagedDatabase(in: root)
        defer { staged.finish() }
        var verified = BackupProgress(estimatedTotalBytes: nil)
        _ = try DatabaseFileCopy.copy(from: sourcePath, to: staged.path, linkingTables: false) { bytes in
            verified.estimate(bytes)
        }
        try readBack(staged.path, source: sourcePath, progress: &verified, report: progress)
        try staged.sync()
        CrashPoint.stagingFilled.reached()

        try DatabaseRegistry.shared.withDatabaseClosed(at: target) { () throws(ModelStoreError) in
            // Checked again under the registry's lock: the name may have appeared meanwhile.
            try checkTarget(target, replacingExisting: replacingExisting)
            switch StoreDirectory.kind(of: target) {
            case .database:
                let lock = try DirectoryLock(directory: target)
                defer { lock.unlock() }
                let levelDBLock = try LevelDBFileLock(directory: target)
                defer { levelDBLock.release() }
                if try staged.exchange(with: target) { return }
                // A file system that cannot exchange names: the old database goes first, so a
                // crash here leaves no database under the name, never a mixture.
                try StoreDirectory.remove(target, root: root)
                guard try staged.install(at: target) else { throw .alreadyExists(path: target) }
            default:
                guard try staged.install(at: target) else { throw .alreadyExists(path: target) }
            }
        }
        return BackupReport(
            url: URL(fileURLWithPath: target, isDirectory: true), records: verified.records,
            systemEntries: verified.systemEntries, bytes: verified.bytes, duration: clock.now - started)
    }

    /// Refuses a target that is not ours, or a database when not replacing it.
    private static func checkTarget(_ target: String, replacingExisting: Bool) throws(ModelStoreError) {
        switch StoreDirectory.kind(of: target) {
        case .missing: return
        case .foreign: throw .notAModelStore(path: target)
        case .database: if !replacingExisting { throw .alreadyExists(path: target) }
        }
    }

    /// Opens the copy (LevelDB recovers its logs) and reads every entry with LevelDB's block
    /// checksums and paranoid checks on, and every record's own checksum; a backup with any
    /// damage is refused before it replaces anything.
    private static func readBack(
        _ path: String, source: String, progress: inout BackupProgress, report: (BackupProgress) -> Void
    ) throws(ModelStoreError) {
        var options = ModelStore.Configuration().engineOptions
        options.paranoidChecks = true
        var damaged = 0
        var firstDamaged: String?
        do {
            let engine = try LevelDB(path: path, options: options, createIfMissing: true)
            defer { engine.close() }
            let iterator = try engine.makeIterator(snapshot: nil, fillCache: false)
            try iterator.seekToFirst()
            while true {
                var bytes = 0
                var systemEntries = 0
                let (seen, _) = try iterator.scanForward(limit: DatabaseBackup.chunkSize) { key, value in
                    bytes += key.count + value.count
                    // ModelStore's own entries (0xFF…) are not records and have no envelope.
                    guard key.first != KeySpace.systemMarker else {
                        systemEntries += 1
                        return true
                    }
                    if let header = RecordHeader(parsing: value), header.checksumMatches(value: value, key: key) {
                        return true
                    }
                    damaged += 1
                    if firstDamaged == nil, let (_, name) = KeySpace.split(key) { firstDamaged = name }
                    return true
                }
                progress.add(records: seen - systemEntries, systemEntries: systemEntries, bytes: UInt64(bytes))
                report(progress)
                if seen < DatabaseBackup.chunkSize { break }
            }
        } catch let failure as LevelDBFailure {
            throw failure.storeError(path: source)
        } catch {
            throw .io(path: source, message: "cannot read the backup back: \(error)")
        }
        if damaged > 0 {
            throw .corrupted(
                path: source,
                message: "\(damaged) records of the backup fail their checksums (the first under key "
                    + "\((firstDamaged ?? "?").debugDescription)); nothing was restored. Restore another backup, or "
                    + "repair a copy of this one first")
        }
    }
}
