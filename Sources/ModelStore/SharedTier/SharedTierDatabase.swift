import Foundation
import Logging

/// One open database as a ``SharedTier`` sees it: its name, its current local records, and the
/// way to drop what other processes changed. ModelStore makes one per database opened with a
/// tier and hands it to ``SharedTier/attach(_:)``.
///
/// It is also the core's side of the link: the write funnel hands it each commit's changes
/// (its internal `didCommit(_:)`), the record lookup asks it on a local miss (`Scope+SharedTier.swift`).
public final class SharedTierDatabase: Sendable {
    /// The database's name: what identifies it across the fleet (not its path).
    public let name: String
    /// The tier the database was opened with.
    let tier: any SharedTier
    /// Counts invalidations applied from other processes, so a record read from the tier before
    /// one of them is not stored locally after it (see `Scope.sharedRecord`).
    let remoteChanges = AtomicWord()
    /// The changes of other processes and of this one (counted before each is committed, and at
    /// the start and end of a bulk removal) per stripe of keys, which the queued local fills are
    /// checked against (SharedTierKeyChanges.swift).
    let keyChanges = SharedTierKeyChanges()
    /// Bulk removals (by prefix, tag, key space) under way in this process: while any runs, no
    /// queued fill is written (one read from the tier before the removal reached Redis could put
    /// back a record the removal walked past).
    let bulkRemovalsUnderWay = AtomicWord()
    /// Issues the times (versions) of this database's writes (FleetClock.swift).
    let clock = FleetClock()
    /// The doubt horizon, as a Float64's bits (0: no doubt): a local record stored at or before
    /// it is revalidated against the tier when first read (``enterDoubt()``).
    let doubtHorizon = AtomicWord()
    /// Keys of records older than the horizon that were revalidated since it was set.
    let validated = Locked(Set<ByteKey>())
    /// Counts the doubts begun (raised under ``validated``'s lock as it is emptied): a record read
    /// from the tier before a doubt began is not noted as revalidated after it (a queued fill
    /// notes its key as it lands, `SharedTierFills.swift`).
    let doubtsBegun = AtomicWord()
    /// The horizon of the last doubt that was not a loss of the tier's data (attach, missed
    /// invalidations), as a Float64's bits: a record at or before it that the tier knows nothing
    /// of may be older than a write this node never heard of (``enterDoubtAfterDataLoss()``).
    let refreshHorizon = AtomicWord()
    /// Keys revalidated before the tier lost its data, since the last other doubt: as current as
    /// the stream made them, so kept without a refresh when the tier knows nothing of them.
    let confirmed = Locked(Set<ByteKey>())
    /// Records read from the tier, stored locally off the reader's path (SharedTierFills.swift).
    let fills = SharedTierFills()
    /// Keys of doubted records the tier knew nothing of (it lost its data, say), kept and served:
    /// a read-through hit of one refreshes it from its source (``takeUnconfirmed(_:in:)``).
    let unconfirmed = Locked(Set<ByteKey>())
    /// How many keys ``unconfirmed`` holds: a read-through hit checks it without the lock.
    let unconfirmedCount = AtomicWord()
    /// Records read from the tier lately, oldest first (``dropRecentFills()``).
    let recentFills = Locked<[RecentFill]>([])
    /// Keys waiting for their background refresh, and whether one thread takes them
    /// (SharedTierDatabase+Refresh.swift).
    let refreshes = Locked<RefreshQueue>(RefreshQueue())
    private let state = Locked(State())

    /// How many revalidated keys are remembered; past it, a doubted record is asked about on
    /// each read (still correct, one tier round trip each), so memory stays bounded.
    static let validatedLimit = 1_000_000

    private struct State {
        /// A scope of the database's own (never closed by a store's `close()`), for applying
        /// invalidations and reading current records; nil before ``start(scope:)`` and after ``stop()``.
        var scope: Scope?
        var attachment: (any SharedTierAttachment)?
    }

    init(name: String, tier: any SharedTier) {
        self.name = name
        self.tier = tier
    }

    /// What the calling thread (or task) does for the tier, as bits: ``isApplying`` and
    /// ``defersTier``. One task-local value for both, so a lookup that missed locally checks
    /// both with one read of it (each read cost a Redis hit or miss about 80 instructions).
    @TaskLocal static var tierFlags: UInt8 = 0
    /// ``tierFlags``' bit of ``isApplying``.
    static let applyingFlag: UInt8 = 1
    /// ``tierFlags``' bit of ``defersTier``.
    static let defersTierFlag: UInt8 = 2

    /// True while this thread applies what the tier asked (an invalidation from another
    /// process, a record read from the tier): those local writes are not published back.
    static var isApplying: Bool { tierFlags & applyingFlag != 0 }

    /// True while a read-through's hit step runs in a task: a local miss (or a doubted record)
    /// is answered as a miss without asking the tier, and the miss path asks it off the
    /// cooperative pool (`Scope.readThroughEntryAskingTier`).
    static var defersTier: Bool { tierFlags & defersTierFlag != 0 }

    /// Runs `body` with ``isApplying`` true.
    static func applying<Result>(_ body: () throws -> Result) rethrows -> Result {
        try $tierFlags.withValue(tierFlags | applyingFlag, operation: body)
    }

    /// Runs `body` with ``defersTier`` true.
    static func deferringTier<Result>(_ body: () throws -> Result) rethrows -> Result {
        try $tierFlags.withValue(tierFlags | defersTierFlag, operation: body)
    }

    /// Whether the calling thread runs a task (so it may be a thread of Swift's cooperative
    /// pool, where the tier's blocking calls must not run).
    static var isInTask: Bool {
        withUnsafeCurrentTask { $0 != nil }
    }

    /// Attaches the database to the tier, once: the first store opened with it supplies the
    /// policy that judges records without a lifetime of their own.
    func start(scope: Scope) {
        let own = Scope(
            database: scope.database, reader: scope.reader, configuration: scope.configuration, closed: AtomicWord())
        let isFirst = state.withLock { state -> Bool in
            guard state.scope == nil, state.attachment == nil else { return false }
            state.scope = own
            return true
        }
        guard isFirst else { return }
        let attachment = tier.attach(self)
        state.withLock { $0.attachment = attachment }
    }

    /// Detaches the database as it closes (while it can still be read: the tier takes what its
    /// queued publications owe); breaks the reference from the database to its scope.
    func stop() {
        let attachment = state.withLock { state -> (any SharedTierAttachment)? in
            defer { state.attachment = nil }
            return state.attachment
        }
        attachment?.detach()
        state.withLock { $0.scope = nil }
    }

    var attachment: (any SharedTierAttachment)? { state.withLock { $0.attachment } }

    /// The database's own scope; nil before ``start(scope:)`` and after ``stop()``.
    var scope: Scope? { state.withLock { $0.scope } }

    // MARK: - From the write funnel

    /// Whether a change is the fleet's business: sets and removals. Expiry and eviction are
    /// local decisions and are not published: the tier keeps a record no longer than its lifetime.
    private static func isPublished(_ change: KeyChange) -> Bool {
        change.kind == .set || change.kind == .removed || change.dependsOnStoredRecord
    }

    /// `write` with the outbox entries of the keys `changes` sets or removes joined to it, in one
    /// atomic batch (FleetOutbox.swift); `write` itself when the tier is applying it, or when
    /// nothing in it is published.
    func outboxed(_ write: EngineWrite, _ changes: ChangeList) -> EngineWrite {
        guard !Self.isApplying, !changes.isEmpty, let scope else { return write }
        changes.forEach { keyChanges.changed($0.space.collection, $0.key) }
        if !changes.prefixes.isEmpty { keyChanges.changedAll() }
        var entries: [(key: [UInt8], value: [UInt8])] = []
        changes.forEach { change in
            guard Self.isPublished(change) else { return }
            let value = change.kind == .set ? [FleetOutbox.setMark] : FleetOutbox.removal(at: clock.issue(scope.reader.now()))
            // Keys in a change list were validated by the write that made it.
            try? change.space.withPhysicalKey(change.key) { entries.append((FleetOutbox.key(of: $0), value)) }
        }
        guard !entries.isEmpty else { return write }
        let batch: LevelDBWriteBatch
        switch write {
        case .batch(let existing): batch = existing
        case .put(let key, let value):
            batch = LevelDBWriteBatch()
            batch.put(key: key, value: value)
        case .delete(let key):
            batch = LevelDBWriteBatch()
            batch.delete(key: key)
        }
        for entry in entries {
            entry.key.withUnsafeBytes { key in entry.value.withUnsafeBytes { batch.put(key: key, value: $0) } }
        }
        return .batch(batch)
    }

    /// Publishes the keys a local commit set or removed (their outbox entries are in the commit).
    func didCommit(_ changes: ChangeList) {
        guard !changes.isEmpty, !Self.isApplying, let attachment else { return }
        var keys: [SharedTierKey] = []
        keys.reserveCapacity(changes.count)
        changes.forEach { change in
            guard Self.isPublished(change) else { return }
            keys.append(SharedTierKey(collection: change.space.collection, key: change.key))
        }
        if !keys.isEmpty { attachment.publish(.keys(keys)) }
        for (space, prefix) in changes.prefixes {
            publishBulk(.prefix(prefix, collection: space.collection), to: attachment)
        }
    }

    /// Publishes a removal by prefix (or of a whole collection: the empty prefix).
    func didRemove(prefix: String, in space: KeySpace) {
        guard !Self.isApplying, let attachment else { return }
        publishBulk(.prefix(prefix, collection: space.collection), to: attachment)
    }

    /// Publishes a removal by tag of the records stored at or before `version`.
    func didRemove(tag: String, version: SharedTierVersion?) {
        guard !Self.isApplying, let attachment else { return }
        publishBulk(.tag(tag, version: version), to: attachment)
    }

    /// The counts of applied invalidations and of the key's changes, read before the tier is
    /// asked for a record: what its local fill is checked against.
    struct ChangesSeen {
        let remote: UInt64
        /// The counts of the key's stripe and of bulk changes (what a queued fill is checked against).
        let key: SharedTierKeyChanges.Reading
        /// The key's hash that picked its stripe (``SharedTierKeyChanges/hash(_:_:)``), kept by a
        /// queued fill.
        let keyHash: Int
        /// The count of doubts begun (``doubtsBegun``): what a queued fill's revalidation note is
        /// checked against.
        let doubtsBegun: UInt64
    }

    /// The counts now, for a read of `key` in `collection` (``ChangesSeen``).
    func changesSeen(_ collection: String?, _ key: String) -> ChangesSeen {
        let keyHash = keyChanges.hash(collection, key)
        let keyReading = keyChanges.reading(hash: keyHash)
        return ChangesSeen(
            remote: remoteChanges.load(), key: keyReading, keyHash: keyHash, doubtsBegun: doubtsBegun.load())
    }

    /// Runs `body`, a bulk removal of this process (by prefix, tag or key space, with its
    /// publication), as one local change for the queued fills: none read from the tier before
    /// its end is written after it, and none at all is written while it runs.
    func bulkRemoval<Result>(_ body: () throws -> Result) rethrows -> Result {
        guard !Self.isApplying else { return try body() }
        keyChanges.changedAll()
        _ = bulkRemovalsUnderWay.add(1)
        defer {
            _ = bulkRemovalsUnderWay.subtract(1)
            keyChanges.changedAll()
        }
        return try body()
    }

    /// Publishes the deletion of the whole database (`deleteFromDisk()`, `deleteDatabase(named:in:)`
    /// while it is open here), before it closes. Not kept in the outbox: the database goes.
    func didDeleteDatabase() {
        guard !Self.isApplying, let attachment else { return }
        attachment.publish(.database)
    }

    /// Keeps a bulk removal in the outbox, then publishes it.
    private func publishBulk(_ invalidation: SharedTierInvalidation, to attachment: any SharedTierAttachment) {
        if let scope, let value = FleetOutbox.encode(invalidation) {
            var key: [UInt8] = [KeySpace.systemMarker, FleetOutbox.bulkKind]
            withUnsafeBytes(of: clock.issue(scope.reader.now()).bitPattern.bigEndian) { key.append(contentsOf: $0) }
            do {
                try scope.database.commitSystemRecord(key: key, value: value, sync: false)
            } catch {
                scope.database.logger.warning(
                    "Could not keep a bulk removal in the shared tier's outbox; publishing it now only",
                    metadata: ["database": "\(scope.database.path)", "error": "\(error)"])
            }
        }
        attachment.publish(invalidation)
    }

    // MARK: - For the tier

    /// The record stored locally for `key` (verified in full, live), with its remaining
    /// lifetime; nil when there is none, it has expired, or it is of a format older than
    /// version 3 (whose checksum does not cover every byte, so it is never shared).
    public func currentRecord(for key: SharedTierKey) -> SharedTierRecord? {
        guard let scope, let space = Self.space(key.collection) else { return nil }
        let reader = scope.reader
        return try? space.withPhysicalKey(key.key) { keyBytes in
            try scope.database.run { engine in
                try engine.withValue(forKey: keyBytes) { record -> SharedTierRecord? in
                    guard let record, let header = RecordHeader(parsing: record), header.isFullyChecked,
                        header.checksumMatches(value: record, key: keyBytes)
                    else { return nil }
                    var remaining: Duration? = nil
                    if let deadline = header.deadline(timeToLive: reader.timeToLive) {
                        let left = deadline - reader.now()
                        guard left > 0 else { return nil }
                        remaining = .milliseconds(Int64(min(left * 1000, Double(Int64.max / 2)).rounded(.down)))
                    }
                    return SharedTierRecord(bytes: Array(record), remainingLifetime: remaining)
                }
            }
        }
    }

    /// Drops, from the local tiers (object cache, LevelDB, remembered answers), what another
    /// process's write named; nothing applied here is published back. Failures are logged.
    public func apply(_ invalidation: SharedTierInvalidation) {
        guard let scope else { return }
        _ = remoteChanges.add(1)
        switch invalidation {
        case .versioned(let changes):
            for change in changes { keyChanges.changed(change.key.collection, change.key.key) }
        case .keys(let keys):
            for key in keys { keyChanges.changed(key.collection, key.key) }
        default:
            keyChanges.changedAll()
        }
        Self.applying {
            do {
                switch invalidation {
                case .versioned(let changes):
                    try dropOlder(than: changes, scope)
                case .keys(let keys):
                    var byCollection: [String?: [String]] = [:]
                    for key in keys { byCollection[key.collection, default: []].append(key.key) }
                    for (collection, keys) in byCollection {
                        try Self.scope(scope, collection).removeObjects(forKeys: keys)
                    }
                case .prefix(let prefix, let collection):
                    try Self.scope(scope, collection).removeObjects(withPrefix: prefix)
                case .tag(let tag, let version):
                    if let version { clock.observe(version.time) }
                    _ = try scope.removeObjects(taggedWith: tag, notNewerThan: version ?? SharedTierVersion(time: .infinity))
                case .database:
                    try clearAll(scope)
                }
            } catch {
                scope.database.logger.warning(
                    "Could not apply a shared tier's invalidation locally",
                    metadata: ["database": "\(scope.database.path)", "invalidation": "\(invalidation)", "error": "\(error)"])
            }
        }
    }

    /// Drops every record of the database from its local tiers. A tier that cannot know what
    /// it missed should call ``enterDoubt()`` instead, which loses nothing.
    public func clearLocalTiers() {
        apply(.database)
    }

    /// Removes every user record through the chunked removal loop, then forgets everything in memory.
    private func clearAll(_ scope: Scope) throws {
        let database = scope.database
        try database.removeInChunks(KeySpace.userRecords, sync: false) { key, _, chunk in
            chunk.remove(key, reporting: KeySpace.split(key).map { KeyChange($0.key, in: $0.space, .removed) })
        }
        database.cache?.removeAll()
    }

    static func space(_ collection: String?) -> KeySpace? {
        guard let collection else { return .default }
        return try? KeySpace(collection: collection)
    }

    static func scope(_ scope: Scope, _ collection: String?) -> Scope {
        collection.map { scope.collection($0, policy: nil) } ?? scope
    }
}
