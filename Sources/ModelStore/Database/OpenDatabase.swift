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

    /// The database's canonical directory path, as spelled by the open that opened it.
    let path: String
    let name: String
    let root: String
    let engine: LevelDB
    let logger: Logger
    private let lock: DirectoryLock

    /// The marker file's identity, the registry's key.
    var identity: FileIdentity { lock.identity }

    /// The settings fixed at the first open, compared with later opens' (see the registry).
    let options: EngineOptions
    let objectCacheLimit: Int

    /// Whether the database's directory was found removed or replaced while open (calls on its
    /// instances then throw ``ModelStoreError/directoryRemoved(path:)``, not `closed`), and
    /// when writes last checked, in one word so that every write reads both without a lock:
    /// ``removedBit`` set once removed, the other bits the monotonic nanoseconds of the last
    /// look at the marker (0 before the first).
    private let removal = AtomicWord()

    /// The bit of ``removal`` that says the directory was found removed.
    private static let removedBit: UInt64 = 1 << 63

    /// How often writes look at the marker: at most once per millisecond. Looking costs an
    /// fstat(2), a tenth of a put; once per millisecond it is lost in the noise. The price: writes acknowledged in the first millisecond after the
    /// directory is deleted can be lost with it (RELIABILITY.md, "Not guaranteed").
    static let removalCheckInterval: UInt64 = 1_000_000

    /// Read-through fetches in flight, by key bytes, so concurrent misses share one fetch.
    let fetches: FetchCoalescer

    /// Keys whose read-through fetch answered `.notFound`, remembered for a while.
    let notFound = NotFoundMemory()

    /// Keys whose read-through fetch failed and served a stale record, for the fail-safe throttle.
    let failSafe = FailSafeMemory()

    /// Read-through counters, created once per collection of the open database.
    let readThroughMetrics: ReadThroughMetricsByCollection

    /// What read-through timeouts wait on (a manual clock in tests).
    let readThroughClock: any ReadThroughClock

    /// Streams of changes handed out by ``ModelStore/changes(bufferingPolicy:)``.
    let changes = ChangeBroadcaster()

    /// Decoded models kept in memory, or nil when ``ModelStore/Configuration/objectCacheLimit`` is 0.
    let cache: ObjectCache?
    /// ``cache`` without a reference count: a hit reads through it (`_withUnsafeGuaranteedRef`)
    /// without retaining the cache every thread shares, which a read of ``cache`` does.
    let unretainedCache: Unmanaged<ObjectCache>?

    /// The database's Zstandard dictionaries, loaded at open whatever the configuration says:
    /// any store of the database reads the compressed records it holds.
    let dictionaries: RecordDictionaries

    /// The policies recorded in the database for tools (`0xFF 0x03`), and what this process
    /// knows they hold.
    let policies = StoredPolicies()

    /// The secondary indexes defined in this process (Indexes/), maintained by the write funnel.
    let indexes = IndexRegistry()

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

    /// The shared tier's link (``ModelStore/Configuration/sharedTier``), fixed at the first open;
    /// nil: none, and the lookup and the write funnel pay one nil check.
    let sharedTier: SharedTierDatabase?

    /// Keeps the database within its limits while writes arrive (Eviction/), when it was first
    /// opened in the process with a limit; nil: reads and writes pay one nil check.
    let limits: LimitEnforcer?

    /// The use counts of `limits`' sketch (under ``ModelStore/Eviction/leastRecentlyUsed``), which
    /// reads add to without retaining the enforcer; nil: none, one nil check per read.
    let useCounts: UseSketch.Counts?

    /// Records removed by limits and sweeps, by reason (`modelstore_evictions_total`).
    let evictionMetrics: EvictionMetrics

    /// Leases held by stores, snapshots and enumerations; guarded by the registry's lock.
    var leases = 0

    init(
        path: String, name: String, root: String, options: EngineOptions, objectCacheLimit: Int, logger: Logger,
        readThrough: ReadThroughSettings = ReadThroughSettings(), sharedTier: (any SharedTier)? = nil,
        limits: LimitEnforcer.Limits? = nil, evictsInline: Bool = false
    ) throws(ModelStoreError) {
        let lock = try DirectoryLock(directory: path)
        engine = try DatabaseOpener.open(path: path, options: options, logger: logger)
        self.lock = lock
        self.path = path
        self.name = name
        self.root = root
        self.logger = logger
        self.options = options
        self.objectCacheLimit = objectCacheLimit
        dictionaries = RecordDictionaries(loadingFrom: engine, path: path, logger: logger)
        do {
            try indexes.loadStoredIDs(from: engine)
        } catch {
            // Damage is for reads to report, never a reason to refuse the open: the indexes this
            // process defines read the definitions again, and queries check entries against the
            // records, so only another program's entries can go stale meanwhile.
            logger.warning(
                "The index definitions could not be read at open", metadata: ["database": "\(path)", "error": "\(error)"])
        }
        readThroughMetrics = ReadThroughMetricsByCollection(database: name, factory: readThrough.metricsFactory)
        readThroughClock = readThrough.clock
        fetches = FetchCoalescer()
        self.sharedTier = sharedTier.map { SharedTierDatabase(name: name, tier: $0) }
        let evictionMetrics = EvictionMetrics(database: name, factory: readThrough.metricsFactory)
        self.evictionMetrics = evictionMetrics
        self.limits = limits.flatMap { limits in
            limits.isEmpty
                ? nil
                : LimitEnforcer(
                    limits: limits, enforcement: evictsInline ? .inline : .background, database: name,
                    metrics: evictionMetrics)
        }
        useCounts = self.limits?.sketch?.counts
        cache = objectCacheLimit > 0 ? ObjectCache(limit: objectCacheLimit, hashesKeys: useCounts != nil) : nil
        unretainedCache = cache.map { Unmanaged.passUnretained($0) }
    }

    /// Whether anything is kept in memory about keys that a write must forget: an object cache,
    /// or a remembered "not found" or fail-safe failure. A database that keeps nothing (no cache,
    /// no read-through memories) skips the forgetting of its writes' keys.
    @inline(__always)
    var keepsKeysInMemory: Bool { cache != nil || !notFound.isEmpty || !failSafe.isEmpty }

    /// Forgets what in-memory structures know about `key` after a write or removal of it:
    /// the decoded model and a remembered read-through "not found".
    @inline(__always)
    func invalidate(_ key: String, in space: KeySpace = .default) {
        cache?.invalidate(key, in: space)
        notFound.forget(key, in: space)
        failSafe.forget(key, in: space)
    }

    /// ``invalidate(_:in:)`` for several keys, each in its own space (`spaces` parallels
    /// `keys`; nil means all in the default one).
    func invalidate(_ keys: [String], spaces: [KeySpace]? = nil) {
        cache?.invalidate(keys, spaces: spaces)
        notFound.forget(keys, spaces: spaces)
        failSafe.forget(keys, spaces: spaces)
    }

    /// ``invalidate(_:in:)`` for every key of `space` that starts with `prefix`.
    func invalidate(prefix: String, in space: KeySpace = .default) {
        cache?.invalidate(prefix: prefix, in: space)
        notFound.forget(prefix: prefix, in: space)
        failSafe.forget(prefix: prefix, in: space)
    }

    /// Forgets every decoded model and remembered "not found": a shared tier's doubt, after which
    /// every read must reach the record lookup, where doubted records are revalidated.
    func forgetEverythingInMemory() {
        cache?.removeAll()
        notFound.forgetAll()
    }

    /// Runs compactions that sweeps request, and the training of a compression dictionary,
    /// one at a time, off the callers' threads.
    let maintenance = DispatchQueue(label: "ModelStore.maintenance", qos: .utility)

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

    /// Waits until background compactions (and dictionary training) requested so far have finished.
    func waitForMaintenance() {
        maintenance.sync {}
    }

    /// Closes LevelDB, then releases the directory lock.
    func shutdown() {
        sharedTier?.stop()
        engine.close()
        lock.unlock()
        changes.finishAll()
    }

    // MARK: - A removed directory

    /// Records that the directory is gone, so instances report it; returns whether this call
    /// was the first to notice, for logging once.
    @discardableResult
    func markDirectoryRemoved() -> Bool {
        removal.setBits(Self.removedBit) & Self.removedBit == 0
    }

    /// The error for a call on a database that is no longer open.
    var closedError: ModelStoreError {
        removal.load() & Self.removedBit != 0 ? .directoryRemoved(path: path) : .closed(path: path)
    }

    /// Throws ``ModelStoreError/directoryRemoved(path:)`` once the marker was found unlinked,
    /// which happens only when the directory is deleted: a write acknowledged then would vanish
    /// with the files. Looks at the marker at most once per ``removalCheckInterval``; once it
    /// found it unlinked, refuses every write. The caller holds the write gate.
    ///
    /// Lock-free: a write between two looks only reads the word (a cache line that changes at
    /// most once per millisecond, so concurrent writers do not bounce it between cores); the
    /// one write that finds a look due claims it with a compare-and-swap, so concurrent writers
    /// never stat twice for one interval.
    @inline(__always)
    private func refuseIfDirectoryRemoved() throws(ModelStoreError) {
        let state = removal.load()
        if state & Self.removedBit != 0 { throw closedOrRemoved() }
        let now = Self.monotonicNanoseconds()
        guard now &- state >= Self.removalCheckInterval else { return }
        guard removal.compareExchange(expected: state, desired: now) else {
            // Another write claimed this look, or found the directory removed just now.
            if removal.load() & Self.removedBit != 0 { throw closedOrRemoved() }
            return
        }
        guard !lock.markerIsLinked() else { return }
        throw closedOrRemoved()
    }

    /// After the marker was found unlinked: `closed` when ModelStore deleted the database (it
    /// closes the engine first), else ``ModelStoreError/directoryRemoved(path:)``, logged once.
    private func closedOrRemoved() -> ModelStoreError {
        guard engine.isOpen else { return closedError }
        if markDirectoryRemoved() {
            logger.error(
                "The database's directory was deleted while it was open; refusing writes. Open a new ModelStore.",
                metadata: ["database": "\(path)"])
        }
        return .directoryRemoved(path: path)
    }

    private static func monotonicNanoseconds() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
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
            throw closedError
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
                try refuseIfDirectoryRemoved()
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
            try refuseIfDirectoryRemoved()
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
    /// closed database, a removed directory (every later write says so itself) or a write that
    /// was refused because writes are already disabled.
    private static func disablesWrites(_ error: ModelStoreError) -> Bool {
        switch error {
        case .closed, .writesDisabled, .directoryRemoved, .indexerFailed: return false
        default: return true
        }
    }

    /// Keeps the first failure; the caller holds the write gate exclusively. Returns whether
    /// this was the first, which the caller logs once it has let go of the gate.
    private func recordWriteFailure(_ error: ModelStoreError) -> Bool {
        guard writeFailure == nil else { return false }
        writeFailure = error.failureSummary
        return true
    }

    private func logWriteFailure(_ error: ModelStoreError) {
        logger.error(
            "Write failed; refusing further writes until the database is reopened",
            metadata: ["database": "\(path)", "error": "\(error)"])
    }
}
