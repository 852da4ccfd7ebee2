import Foundation
import Logging

/// One open database in this process, shared by every ``ModelStore`` instance, snapshot and
/// enumeration that uses it.
///
/// It owns the LevelDB handle and the directory lock. ``DatabaseRegistry`` counts its
/// leases and closes it when the last one is returned, or at once when the database is
/// deleted.
final class OpenDatabase: @unchecked Sendable {
    // @unchecked: all stored properties are immutable or are `Locked`/lock-guarded types.

    /// The database's canonical directory path, the registry's key.
    let path: String
    let name: String
    let root: String
    let engine: LevelDB
    let logger: Logger
    private let lock: DirectoryLock

    /// Read-through fetches in flight, by key bytes, so concurrent misses share one fetch.
    let fetches = FetchCoalescer()

    /// Streams of changes handed out by ``ModelStore/changes(bufferingPolicy:)``.
    let changes = ChangeBroadcaster()

    /// Decoded models kept in memory, or nil when ``ModelStore/Configuration/objectCacheLimit`` is 0.
    let cache: ObjectCache?

    /// Writes take this shared; a read that purges an expired record, and each chunk of an
    /// expiry sweep, take it exclusively, so they never delete a record that a concurrent
    /// writer has just replaced. LevelDB still groups concurrent shared writers.
    let writeGate = ReadWriteLock()

    /// The first write failure's message; once set, writes are refused until the database is
    /// reopened, because LevelDB 1.23 can acknowledge later writes on the same handle and lose
    /// them. Guarded by ``writeGate``: read while holding it (shared or exclusive), set only
    /// while holding it exclusively, so a write checks it without taking another lock.
    /// (Unchecked exclusivity for the same reason as ``Locked``'s value: the gate guards it.)
    @exclusivity(unchecked) private var writeFailure: String?

    /// Leases held by stores, snapshots and enumerations; guarded by the registry's lock.
    var leases = 0

    init(
        path: String, name: String, root: String, options: EngineOptions, objectCacheLimit: Int, logger: Logger
    ) throws(ModelStoreError) {
        let lock = try DirectoryLock(directory: path)
        engine = try DatabaseOpener.open(path: path, options: options, logger: logger)
        self.lock = lock
        self.path = path
        self.name = name
        self.root = root
        self.logger = logger
        cache = objectCacheLimit > 0 ? ObjectCache(limit: objectCacheLimit) : nil
    }

    /// Runs compactions that sweeps request, one at a time, off the callers' threads.
    private let maintenance = DispatchQueue(label: "ModelStore.maintenance", qos: .utility)

    /// Compacts `[start, limit]` in the background, so space held by just-deleted records
    /// is given back without making the caller wait. Skipped if the database closes first.
    func scheduleCompaction(start: [UInt8], limit: [UInt8]) {
        maintenance.async { [engine, logger, path] in
            do {
                try engine.compact(start: start, limit: limit)
            } catch is EngineClosed {
                return
            } catch {
                logger.warning("Background compaction failed", metadata: ["database": "\(path)", "error": "\(error)"])
            }
        }
    }

    /// Waits until background compactions requested so far have finished.
    func waitForMaintenance() {
        maintenance.sync {}
    }

    /// Closes LevelDB, then releases the directory lock.
    func shutdown() {
        engine.close()
        lock.unlock()
        changes.finishAll()
    }

    // MARK: - Error funnel

    /// Runs an engine call, converting engine errors into ``ModelStoreError``.
    @inline(__always)
    func run<Result>(_ body: (LevelDB) throws -> Result) throws(ModelStoreError) -> Result {
        do {
            return try body(engine)
        } catch let error as ModelStoreError {
            throw error
        } catch let error as LevelDBFailure {
            throw error.storeError(path: path)
        } catch is EngineClosed {
            throw .closed(path: path)
        } catch {
            throw .io(path: path, message: String(describing: error))
        }
    }

    /// Runs a write under the shared write gate, refusing it after an earlier failure and
    /// remembering the first failure.
    @inline(__always)
    func write<Result>(_ body: (LevelDB) throws -> Result) throws(ModelStoreError) -> Result {
        do {
            return try writeGate.withReadLock { () throws(ModelStoreError) -> Result in
                try refuseIfWritesDisabled()
                return try run(body)
            }
        } catch {
            // Recorded after the shared hold ends: the failure is set only under the exclusive one.
            if Self.disablesWrites(error), writeGate.withWriteLock({ recordWriteFailure(error) }) {
                logWriteFailure(error)
            }
            throw error
        }
    }

    /// Like ``write(_:)`` but holding the write gate exclusively.
    func exclusiveWrite<Result>(_ body: (LevelDB) throws -> Result) throws(ModelStoreError) -> Result {
        var firstFailure: ModelStoreError?
        defer { if let firstFailure { logWriteFailure(firstFailure) } }
        return try writeGate.withWriteLock { () throws(ModelStoreError) -> Result in
            try refuseIfWritesDisabled()
            do throws(ModelStoreError) {
                return try run(body)
            } catch {
                if Self.disablesWrites(error), recordWriteFailure(error) { firstFailure = error }
                throw error
            }
        }
    }

    /// Throws ``ModelStoreError/writesDisabled(path:message:)`` after an earlier failure; the
    /// caller holds the write gate.
    @inline(__always)
    private func refuseIfWritesDisabled() throws(ModelStoreError) {
        if let writeFailure { throw .writesDisabled(path: path, message: writeFailure) }
    }

    /// Whether `error`, thrown by a write, must stop later writes: any engine failure, but not a
    /// closed database or a write that was refused because writes are already disabled.
    private static func disablesWrites(_ error: ModelStoreError) -> Bool {
        switch error {
        case .closed, .writesDisabled: return false
        default: return true
        }
    }

    /// Keeps the first failure; the caller holds the write gate exclusively. Returns whether
    /// this was the first, which the caller logs once it has let go of the gate.
    private func recordWriteFailure(_ error: ModelStoreError) -> Bool {
        guard writeFailure == nil else { return false }
        writeFailure = error.description
        return true
    }

    private func logWriteFailure(_ error: ModelStoreError) {
        logger.error(
            "Write failed; refusing further writes until the database is reopened",
            metadata: ["database": "\(path)", "error": "\(error)"])
    }
}
