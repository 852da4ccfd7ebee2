import Foundation
import Logging

/// The process-wide table of open databases, keyed by canonical directory path.
///
/// It guarantees one LevelDB handle per database per process: LevelDB 1.23 releases its file
/// lock when a second in-process open of the same path fails, which would let another process
/// in, so a second `leveldb_open` must never happen. Opening, closing and deleting all go
/// through its lock.
final class DatabaseRegistry: @unchecked Sendable {
    // @unchecked: `databases` and every `OpenDatabase.leases` are guarded by `lock`.
    static let shared = DatabaseRegistry()

    private let lock = Lock()
    private var databases: [String: OpenDatabase] = [:]

    /// Returns the open database for `name` under `root`, opening it if needed, and takes
    /// a lease on it.
    func acquire(name: String, configuration: ModelStore.Configuration) throws(ModelStoreError) -> OpenDatabase {
        try DatabaseName.validate(name)
        guard let root = try StoreDirectory.canonicalRoot(configuration.directory, create: true) else {
            throw .io(path: configuration.directory.path, message: "the root directory does not exist")
        }
        let path = root + "/" + name
        return try lock.withLock { () throws(ModelStoreError) -> OpenDatabase in
            if let open = databases[path] {
                open.leases += 1
                return open
            }
            try StoreDirectory.prepare(path)
            let open = try OpenDatabase(
                path: path, name: name, root: root,
                options: configuration.engineOptions, objectCacheLimit: configuration.objectCacheLimit,
                logger: configuration.logger)
            open.leases = 1
            databases[path] = open
            configuration.logger.debug("Opened database", metadata: ["database": "\(path)"])
            return open
        }
    }

    /// Takes one more lease on a database that is still registered (for a snapshot or an
    /// enumeration); throws ``ModelStoreError/closed(path:)`` if it was closed.
    func retain(_ database: OpenDatabase) throws(ModelStoreError) {
        try lock.withLock { () throws(ModelStoreError) in
            guard databases[database.path] === database else { throw .closed(path: database.path) }
            database.leases += 1
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
            guard databases[database.path] === database else { return }
            database.leases -= 1
            guard database.leases == 0 else { return }
            databases[database.path] = nil
            database.shutdown()
            database.logger.debug("Closed database", metadata: ["database": "\(database.path)"])
        }
    }

    /// Runs `body` with the registry locked after closing the database at `path` if it is
    /// open here, so no open in this process can race with `body` (a delete or repair).
    /// Instances still holding the closed database get ``ModelStoreError/closed(path:)``.
    func withDatabaseClosed<Result>(
        at path: String,
        _ body: () throws(ModelStoreError) -> Result
    ) throws(ModelStoreError) -> Result {
        try lock.withLock { () throws(ModelStoreError) -> Result in
            if let open = databases.removeValue(forKey: path) {
                open.shutdown()
            }
            return try body()
        }
    }
}
