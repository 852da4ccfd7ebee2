public import Foundation

extension ModelStore {
    /// Writes a consistent copy of the database to the folder `destination`, while the store
    /// stays open for reads and writes.
    ///
    /// ```swift
    /// let store = try ModelStore(name: "userdb", policy: .low)
    /// try store.backup(to: URL(fileURLWithPath: "/backups/userdb-monday"))
    ///
    /// // Later, or on another machine: the backup is a database of its own.
    /// try ModelStore.restore(from: URL(fileURLWithPath: "/backups/userdb-monday"), named: "userdb")
    /// ```
    ///
    /// The copy is every entry of one LevelDB snapshot, so it holds the database exactly as it was
    /// at one moment: writes that finish after the backup starts are not in it, and every record
    /// is from that moment (records are copied as stored, expired ones too, with ModelStore's
    /// own entries: recorded policies, the tag index, compression dictionaries). Writers are
    /// never blocked; the snapshot only keeps LevelDB from discarding the versions it sees
    /// until the copy is done.
    ///
    /// The backup is a ModelStore database, marker included: open it with
    /// `ModelStore(name: destination.lastPathComponent, …)` in a configuration whose directory
    /// is `destination`'s folder, inspect it with `modelstore --root <folder>`, or install it
    /// under a name with ``restore(from:named:in:replacingExisting:progress:)-5ol5f``. It is built in a
    /// `.modelstore-new-*` folder next to `destination` and renamed into place when complete and
    /// flushed to disk, so `destination` never holds part of a backup; one a crash interrupted
    /// is removed by the next backup, restore, delete or open in that folder.
    ///
    /// - Parameters:
    ///   - destination: The backup's folder, which must not exist (its parent is created if
    ///     needed). Its last component must be a valid database name.
    ///   - progress: Called on the calling thread after each chunk of entries is copied.
    /// - Returns: What was copied.
    /// - Throws: ``ModelStoreError/alreadyExists(path:)`` if something is at `destination`
    ///   (nothing is written); ``ModelStoreError/invalidName(name:reason:)`` for its last
    ///   component; ``ModelStoreError/rootIsADatabase(path:)`` if its folder is a database;
    ///   ``ModelStoreError/closed(path:)``; ``ModelStoreError/corrupted(path:message:)`` if a
    ///   damaged block is met while reading (nothing is left at `destination`);
    ///   ``ModelStoreError/io(path:message:)``.
    /// - Complexity: Reads every entry once and writes it once.
    @discardableResult
    public func backup(to destination: URL, progress: (BackupProgress) -> Void = { _ in }) throws -> BackupReport {
        try DatabaseBackup.write(try scope.open(), to: destination, progress: progress)
    }

    /// Writes a consistent copy of the database to `destination` without blocking the caller's
    /// thread.
    ///
    /// ```swift
    /// try await store.backup(to: URL(fileURLWithPath: "/backups/userdb-monday"))
    /// ```
    ///
    /// - Throws: As ``backup(to:progress:)-5q0xc``.
    @discardableResult
    public func backup(
        to destination: URL, progress: @escaping @Sendable (BackupProgress) -> Void = { _ in }
    ) async throws -> BackupReport {
        let database = try scope.open()
        return try await offload { try DatabaseBackup.write(database, to: destination, progress: progress) }
    }

    /// Installs the backup at `source` as the database `name` under `directory`.
    ///
    /// ```swift
    /// try ModelStore.restore(from: URL(fileURLWithPath: "/backups/userdb-monday"), named: "userdb")
    /// let store = try ModelStore(name: "userdb", policy: .low)
    /// ```
    ///
    /// `source` is any ModelStore database folder: a backup, or a database another process has
    /// open (its files are copied consistently while it changes). It is only read. The copy is
    /// built in a `.modelstore-new-*` folder in `directory`, opened, and every entry read back
    /// with every checksum verified before anything under `name` changes; then it is renamed into
    /// place in one step. Killed at any moment, the restore leaves `name` as it was (no database,
    /// or the one it was replacing) or holding the complete restored database, never a part of
    /// one; what the interrupted restore built is removed by the next backup, restore, delete or
    /// open in `directory`.
    ///
    /// - Parameters:
    ///   - source: The backup's folder.
    ///   - name: The database's name under `directory`.
    ///   - directory: The root directory; defaults to ``defaultDirectory``.
    ///   - replacingExisting: Whether to replace a database already called `name`. It must not
    ///     be open in another process; if this process has it open, it is closed first
    ///     (instances still using it throw ``ModelStoreError/closed(path:)``). Where the file
    ///     system can exchange two names in one step (Linux 3.15+, APFS) the restored database
    ///     takes the old one's place atomically; elsewhere the old one is deleted first.
    ///   - progress: Called on the calling thread as entries are read back and verified.
    /// - Returns: What was restored.
    /// - Throws: ``ModelStoreError/alreadyExists(path:)`` if a database is called `name` and
    ///   `replacingExisting` is false (nothing is changed);
    ///   ``ModelStoreError/notAModelStore(path:)`` if `source` is not a ModelStore database, or
    ///   `name` is a folder or file ModelStore did not create (it is never replaced);
    ///   ``ModelStoreError/invalidName(name:reason:)``; ``ModelStoreError/locked(path:message:)``
    ///   if the database being replaced is open in another process;
    ///   ``ModelStoreError/corrupted(path:message:)`` if the backup is damaged (nothing is
    ///   changed); ``ModelStoreError/io(path:message:)``.
    /// - Complexity: Copies and reads every file of the backup.
    @discardableResult
    public static func restore(
        from source: URL, named name: String, in directory: URL = defaultDirectory, replacingExisting: Bool = false,
        progress: (BackupProgress) -> Void = { _ in }
    ) throws -> BackupReport {
        try DatabaseRestore.restore(
            from: source, named: name, in: directory, replacingExisting: replacingExisting, progress: progress)
    }

    /// Installs the backup at `source` as the database `name` without blocking the caller's
    /// thread.
    ///
    /// ```swift
    /// try await ModelStore.restore(from: URL(fileURLWithPath: "/backups/userdb-monday"), named: "userdb")
    /// ```
    ///
    /// - Throws: As ``restore(from:named:in:replacingExisting:progress:)-5ol5f``.
    @discardableResult
    public static func restore(
        from source: URL, named name: String, in directory: URL = defaultDirectory, replacingExisting: Bool = false,
        progress: @escaping @Sendable (BackupProgress) -> Void = { _ in }
    ) async throws -> BackupReport {
        try await offload {
            try DatabaseRestore.restore(
                from: source, named: name, in: directory, replacingExisting: replacingExisting, progress: progress)
        }
    }
}
