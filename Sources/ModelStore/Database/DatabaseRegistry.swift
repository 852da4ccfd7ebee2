import Foundation
import Logging

/// The process-wide table of open databases, keyed by the identity of each database's marker
/// file (device and inode numbers).
///
/// It guarantees one LevelDB handle per database directory per process: LevelDB 1.23 releases
/// its file lock when a second in-process open of the same path fails, which would let another
/// process in, so a second `leveldb_open` must never happen. Opening, closing and deleting all
/// go through its lock.
///
/// Why the marker's identity and not a path string: `String` equality is canonical
/// equivalence, so "café" in NFC and NFD would share a handle although on Linux they are two
/// folders; and one folder may have several spellings (symbolic links resolved away, but APFS
/// also maps both normalisations to one folder). The identity is the file system's own answer,
/// and it also tells a database apart from a new one created at the same path after the old
/// folder was deleted.
final class DatabaseRegistry: @unchecked Sendable {
    // @unchecked: `databases` and every `OpenDatabase.leases` are guarded by `lock`.
    static let shared = DatabaseRegistry()

    private let lock = Lock()
    private var databases: [FileIdentity: OpenDatabase] = [:]

    /// Returns the open database for `name` under the configuration's root, opening it if
    /// needed, and takes a lease on it. The caller has validated the name and configuration.
    func acquire(name: String, configuration: ModelStore.Configuration) throws(ModelStoreError) -> OpenDatabase {
        guard let root = try StoreDirectory.canonicalRoot(configuration.directory, create: true) else {
            throw .io(path: configuration.directory.path, message: "the root directory does not exist")
        }
        let path = root + "/" + name
        return try lock.withLock { () throws(ModelStoreError) -> OpenDatabase in
            try StoreDirectory.prepare(path, root: root)
            if let identity = StoreDirectory.markerIdentity(of: path), let open = databases[identity] {
                open.leases += 1
                Self.warnAboutIgnoredSettings(open, configuration)
                return open
            }
            // A database still registered under this very path is not the folder there now: the
            // folder was deleted or moved away while open. LevelDB keeps its own table of locked
            // paths, so that handle must close before the path is opened again.
            for stale in databases.values where stale.path.utf8.elementsEqual(path.utf8) {
                evict(stale)
            }
            let open = try OpenDatabase(
                path: path, name: name, root: root,
                options: configuration.engineOptions, objectCacheLimit: configuration.objectCacheLimit,
                logger: configuration.logger, readThrough: configuration.readThrough,
                sharedTier: configuration.sharedTier, limits: configuration.limits,
                evictsInline: configuration.evictsInline)
            open.leases = 1
            databases[open.identity] = open
            configuration.logger.debug("Opened database", metadata: ["database": "\(path)"])
            return open
        }
    }

    /// Whether `database` has exactly one lease (its caller's): no other store, snapshot or
    /// enumeration of it is open in this process. For work that needs the database alone
    /// (re-keying).
    func isSoleLease(_ database: OpenDatabase) -> Bool {
        lock.withLock { database.leases == 1 }
    }

    /// Takes one more lease on a database that is still registered (for a snapshot or an
    /// enumeration); throws ``ModelStoreError/closed(path:)`` if it was closed.
    func retain(_ database: OpenDatabase) throws(ModelStoreError) {
        try lock.withLock { () throws(ModelStoreError) in
            guard databases[database.identity] === database else { throw database.closedError }
            database.leases += 1
        }
    }

    /// Takes a lease on the database at `path` if it is open in this process (the caller
    /// returns it with ``release(_:)``); nil if it is not.
    func leaseIfOpen(at path: String) -> OpenDatabase? {
        lock.withLock {
            guard let identity = StoreDirectory.markerIdentity(of: path), let open = databases[identity] else {
                return nil
            }
            open.leases += 1
            return open
        }
    }

    /// Returns a lease; the last one closes the database.
    ///
    /// The database is closed while the registry is locked: closed and out of the table in
    /// one step, so an open of the same path in this process never finds our own directory
    /// lock still held and reports a spurious `locked`. Nothing that holds the engine's lock
    /// ever waits for the registry's, so waiting here for calls in flight cannot deadlock.
    func release(_ database: OpenDatabase) {
        lock.withLock {
            guard databases[database.identity] === database else { return }
            database.leases -= 1
            guard database.leases == 0 else { return }
            databases[database.identity] = nil
            database.shutdown()
            database.logger.debug("Closed database", metadata: ["database": "\(database.path)"])
        }
    }

    /// Runs `body` with the registry locked after closing the database at `path` if it is
    /// open here, so no open in this process can race with `body` (a delete or repair).
    /// Instances still holding the closed database get ``ModelStoreError/closed(path:)``.
    ///
    /// The database at `path` is the one whose marker is there now; one registered under the
    /// same path whose folder was deleted or moved away is closed too (it holds LevelDB's
    /// lock on the path). A canonically equivalent but byte-different path is another folder.
    func withDatabaseClosed<Result>(
        at path: String,
        _ body: () throws(ModelStoreError) -> Result
    ) throws(ModelStoreError) -> Result {
        try lock.withLock { () throws(ModelStoreError) -> Result in
            if let identity = StoreDirectory.markerIdentity(of: path),
                let open = databases.removeValue(forKey: identity)
            {
                open.shutdown()
            }
            for stale in databases.values where stale.path.utf8.elementsEqual(path.utf8) {
                evict(stale)
            }
            return try body()
        }
    }

    /// Closes a database whose directory is gone; its instances get
    /// ``ModelStoreError/directoryRemoved(path:)``. The caller holds the lock.
    private func evict(_ database: OpenDatabase) {
        databases[database.identity] = nil
        database.markDirectoryRemoved()
        database.shutdown()
        let message = "The database's directory was deleted or moved away while it was open; closed it. "
            + "Its instances now throw directoryRemoved."
        database.logger.warning("\(message)", metadata: ["database": "\(database.path)"])
    }

    /// Logs the settings a later open asked for that the database, already open, cannot take:
    /// LevelDB's tuning and the object cache are fixed when the database is first opened.
    private static func warnAboutIgnoredSettings(_ open: OpenDatabase, _ configuration: ModelStore.Configuration) {
        if configuration.sharedTier !== open.sharedTier?.tier {
            let message = "sharedTier ignored: the database is already open in this process with another shared tier "
                + "(or none), which stays until it is closed"
            configuration.logger.warning("\(message)", metadata: ["database": "\(open.path)"])
        }
        if configuration.objectCacheLimit != open.objectCacheLimit {
            let message = "objectCacheLimit \(configuration.objectCacheLimit) ignored: the database is already open "
                + "in this process with objectCacheLimit \(open.objectCacheLimit), which stays until it is closed"
            configuration.logger.warning("\(message)", metadata: ["database": "\(open.path)"])
        }
        if let limits = open.limits?.limits, configuration.limits != limits, !configuration.limits.isEmpty {
            let message = "limits and eviction for writes ignored: the database is already open in this process "
                + "with \(limits), which stays until it is closed (this store's sweeps apply its own limits)"
            configuration.logger.warning("\(message)", metadata: ["database": "\(open.path)"])
        }
        if configuration.engineOptions != open.options {
            let message = "LevelDB settings ignored: the database is already open in this process with other "
                + "settings, which stay until it is closed"
            configuration.logger.warning(
                "\(message)",
                metadata: [
                    "database": "\(open.path)", "requested": "\(configuration.engineOptions)",
                    "inEffect": "\(open.options)",
                ])
        }
    }
}
