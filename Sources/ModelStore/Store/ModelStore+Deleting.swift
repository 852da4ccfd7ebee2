public import Foundation

extension ModelStore {
    /// Closes the database (every instance of it in this process) and deletes its directory.
    ///
    /// Later calls on any instance of this database throw ``ModelStoreError/closed(path:)``.
    ///
    /// - Throws: ``ModelStoreError/locked(path:message:)`` if another process has it open;
    ///   ``ModelStoreError/io(path:message:)`` if the files cannot be removed.
    public func deleteFromDisk() throws {
        // With a shared tier, the fleet drops the database too; published while still attached.
        database.sharedTier?.didDeleteDatabase()
        try close()
        try Self.deleteDatabase(named: name, in: configuration.directory)
    }

    /// Deletes the database `name` under `directory`, closing it first if this process has
    /// it open. Deleting a database that does not exist succeeds.
    ///
    /// ```swift
    /// try ModelStore.deleteDatabase(named: "userdb")
    /// ```
    ///
    /// Only a directory that carries ModelStore's marker is deleted; symbolic links are
    /// never followed. The folder is first renamed to a `.modelstore-trash-*` folder, so a
    /// crash never leaves half a database under its name; a trash folder left by a crash is
    /// finished by the next delete, ``deleteAllDatabases(in:)-9uqof`` or open in the same directory.
    /// A delete also removes what a creation killed by a crash left in the directory (a
    /// `.modelstore-new-*` folder whose creator is gone).
    ///
    /// - Throws: ``ModelStoreError/invalidName(name:reason:)``;
    ///   ``ModelStoreError/notAModelStore(path:)`` for a folder, file or link that is not a
    ///   ModelStore database (it is left untouched); ``ModelStoreError/locked(path:message:)``
    ///   if another process has it open (a ModelStore or any other LevelDB client);
    ///   ``ModelStoreError/io(path:message:)``.
    public static func deleteDatabase(named name: String, in directory: URL = defaultDirectory) throws {
        try DatabaseName.validate(name)
        guard let root = try StoreDirectory.canonicalRoot(directory, create: false) else { return }
        try deleteDirectory(root + "/" + name, root: root)
        // Finish deletions and remove creations a crash interrupted. Best effort: what cannot
        // be removed now stays recognisable (and listed by `modelstore list`) for the next try.
        try? DatabaseTrash.finishAll(in: root)
        UnfinishedCreations.removeAbandoned(in: root)
    }

    /// Deletes the database `name` under `directory` without blocking the caller's thread.
    ///
    /// ```swift
    /// try await ModelStore.deleteDatabase(named: "userdb")
    /// ```
    ///
    /// - Throws: As ``deleteDatabase(named:in:)``.
    public static func deleteDatabase(named name: String, in directory: URL = defaultDirectory) async throws {
        try await offload { try deleteDatabase(named: name, in: directory) }
    }

    /// Deletes every ModelStore database under `directory`, closing those this process has
    /// open, finishes deletions that a crash interrupted (`.modelstore-trash-*` folders) and
    /// removes creations a crash interrupted (`.modelstore-new-*` folders whose creator is gone).
    /// Files and folders that are not ModelStore databases are left untouched.
    ///
    /// It tries every database even if one fails, then throws the first failure (for
    /// example ``ModelStoreError/locked(path:message:)`` for one open in another process).
    public static func deleteAllDatabases(in directory: URL = defaultDirectory) throws {
        guard let root = try StoreDirectory.canonicalRoot(directory, create: false) else { return }
        let entries: [String]
        do {
            entries = try FileManager.default.contentsOfDirectory(atPath: root)
        } catch {
            throw ModelStoreError.io(path: root, message: "cannot list the root directory: \(error.localizedDescription)")
        }
        var firstFailure: (any Error)?
        do {
            try DatabaseTrash.finishAll(in: root)  // deletions a crash interrupted
        } catch {
            firstFailure = error
        }
        UnfinishedCreations.removeAbandoned(in: root)  // and creations
        for entry in entries.sorted() {
            guard (try? DatabaseName.validate(entry)) != nil else { continue }  // trash names are invalid
            let path = root + "/" + entry
            guard StoreDirectory.kind(of: path) == .database else { continue }
            do {
                try deleteDirectory(path, root: root)
            } catch {
                firstFailure = firstFailure ?? error
            }
        }
        if let firstFailure { throw firstFailure }
    }

    /// Deletes every ModelStore database under `directory` without blocking the caller's
    /// thread.
    ///
    /// - Throws: As ``deleteAllDatabases(in:)-9uqof``.
    public static func deleteAllDatabases(in directory: URL = defaultDirectory) async throws {
        try await offload { try deleteAllDatabases(in: directory) }
    }

    private static func deleteDirectory(_ path: String, root: String) throws(ModelStoreError) {
        // A database open here with a shared tier: the fleet drops it too, while it is attached.
        if let open = DatabaseRegistry.shared.leaseIfOpen(at: path) {
            open.sharedTier?.didDeleteDatabase()
            DatabaseRegistry.shared.release(open)
        }
        try DatabaseRegistry.shared.withDatabaseClosed(at: path) { () throws(ModelStoreError) in
            switch StoreDirectory.kind(of: path) {
            case .missing:
                return
            case .foreign:
                throw .notAModelStore(path: path)
            case .database:
                let lock = try DirectoryLock(directory: path)
                defer { lock.unlock() }
                // Also LevelDB's own lock: a plain LevelDB client (no ModelStore marker lock)
                // may hold the database.
                let levelDBLock = try LevelDBFileLock(directory: path)
                defer { levelDBLock.release() }
                try StoreDirectory.remove(path, root: root)
            }
        }
    }
}
