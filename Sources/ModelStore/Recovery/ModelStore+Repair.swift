public import Foundation

extension ModelStore {
    /// Repairs the damaged database `name` under `directory` with LevelDB's repair, and
    /// reports what it did.
    ///
    /// ```swift
    /// do {
    ///     store = try ModelStore(name: "userdb", policy: .low)
    /// } catch ModelStoreError.corrupted {
    ///     let report = try ModelStore.repair(named: "userdb")
    ///     print(report)
    ///     store = try ModelStore(name: "userdb", policy: .low)
    /// }
    /// ```
    ///
    /// The repair runs under the database's own lock and LevelDB's `LOCK`: if this process has
    /// the database open, it is closed first (instances still using it throw
    /// ``ModelStoreError/closed(path:)`` afterwards); if another process has it open (through
    /// ModelStore or any other LevelDB client), the repair is refused before any file changes. Before LevelDB
    /// repairs the files, ModelStore checks every write-ahead-log record's checksum and makes
    /// LevelDB skip the damaged ones, because LevelDB's repair replays logs unchecked and
    /// would otherwise bring damaged records back with wrong contents. Tables are read with
    /// their checksums verified. So a repair may lose records from damaged parts of the files
    /// (LevelDB moves files it cannot use into a `lost` folder), but no record comes back
    /// wrong.
    ///
    /// The repair is crash-safe: before LevelDB changes anything, ModelStore hard-links every
    /// LevelDB file into a backup folder (`.modelstore-repair-backup`) and writes a journal
    /// (`.modelstore-repair`). If the process dies during the repair, the next open or repair
    /// puts the files back from the backup and repairs again, so nothing a finished repair
    /// would have kept is lost. A repair that fails puts the files back as they were. The
    /// backup costs no copying, only directory entries.
    ///
    /// Opening databases elsewhere in this process waits while the repair runs.
    ///
    /// - Parameters:
    ///   - name: The database's name.
    ///   - directory: The root directory that holds it; defaults to ``defaultDirectory``.
    /// - Returns: What the repair found and did.
    /// - Throws: ``ModelStoreError/invalidName(name:reason:)``;
    ///   ``ModelStoreError/notAModelStore(path:)`` if there is no ModelStore database by that
    ///   name (a missing folder, a foreign folder or a symbolic link, which is left untouched);
    ///   ``ModelStoreError/locked(path:message:)`` if another process has it open (ModelStore
    ///   or any other LevelDB client);
    ///   ``ModelStoreError/corrupted(path:message:)`` if LevelDB cannot repair it;
    ///   ``ModelStoreError/io(path:message:)``.
    /// - Complexity: Reads and rewrites every file of the database.
    public static func repair(named name: String, in directory: URL = defaultDirectory) throws -> RepairReport {
        try DatabaseName.validate(name)
        guard let root = try StoreDirectory.canonicalRoot(directory, create: false) else {
            throw ModelStoreError.notAModelStore(path: directory.appendingPathComponent(name).path)
        }
        let path = root + "/" + name
        // Nothing is logged here: the caller gets the whole story as the returned report.
        return try DatabaseRegistry.shared.withDatabaseClosed(at: path) { () throws(ModelStoreError) -> RepairReport in
            guard StoreDirectory.kind(of: path) == .database else { throw .notAModelStore(path: path) }
            let lock = try DirectoryLock(directory: path)
            defer { lock.unlock() }
            return try DatabaseRepairer.repair(path: path, options: Configuration().engineOptions)
        }
    }

    /// Repairs the damaged database `name` under `directory` without blocking the caller's
    /// thread.
    ///
    /// ```swift
    /// let report = try await ModelStore.repair(named: "userdb")
    /// ```
    ///
    /// - Throws: As ``repair(named:in:)``.
    public static func repair(named name: String, in directory: URL = defaultDirectory) async throws -> RepairReport {
        try await offload { try repair(named: name, in: directory) }
    }
}
