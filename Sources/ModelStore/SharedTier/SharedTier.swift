// MARK: - The shared tier's contract
//
// A shared tier is a cache several processes share (Redis, in the `ModelStoreRedis` product),
// behind each process's own local tiers (the object cache and LevelDB). The core knows only
// this protocol: it consults the tier on a local miss, in the one record lookup, and tells it
// what changed after every local commit, in the write funnel. Nothing here knows Redis.

/// A cache that several processes share, behind each one's local store: set
/// ``ModelStore/Configuration/sharedTier`` to one (`RedisTier`, from the `ModelStoreRedis`
/// product) to run a fleet of servers over one cache.
///
/// ModelStore attaches each database it opens with the tier (``attach(_:)``), then, through the
/// returned ``SharedTierAttachment``: on a local miss it asks the tier for the record; after a
/// local write it hands the tier what changed; and the tier drops what other processes changed
/// through ``SharedTierDatabase/apply(_:)``. A conforming type never throws at readers or
/// writers: an unreachable tier is a miss, and a write it could not publish is its own to retry.
public protocol SharedTier: AnyObject, Sendable {
    /// Connects `database`, opened in this process, to the tier; called once per database
    /// per process, when it is first opened with this tier.
    func attach(_ database: SharedTierDatabase) -> any SharedTierAttachment
}

/// One database's link to a ``SharedTier``, as ``SharedTier/attach(_:)`` returns it.
///
/// Every method may block its caller for a bounded time (the tier's own timeouts) and never
/// throws: a tier that cannot answer answers "nothing".
public protocol SharedTierAttachment: AnyObject, Sendable {
    /// The record the tier holds for `key`, exactly as a local store keeps it, with the
    /// lifetime the tier has left for it; nil when it holds none or cannot be reached.
    func record(for key: SharedTierKey) -> SharedTierRecord?

    /// What the tier knows of `key`: its record, or that it was removed (a tombstone) and at
    /// which version, or nothing, or that it cannot be reached. A local record whose freshness
    /// is in doubt is revalidated against this (``SharedTierDatabase/enterDoubt()``). The
    /// default asks ``record(for:)``, which cannot tell "nothing" from "unreachable".
    func lookup(_ key: SharedTierKey) -> SharedTierAnswer

    /// Drops `key` from the tier: what it held there was not a valid record for it (damaged,
    /// truncated, another program's value).
    func discard(_ key: SharedTierKey)

    /// Publishes what a local write changed: the tier stores the current local record of each
    /// key named (``SharedTierDatabase/currentRecord(for:)``), removes the others, and tells
    /// the other processes to drop what was named. Called after the local commit, on the
    /// writer's thread.
    func publish(_ invalidation: SharedTierInvalidation)

    /// Tries to become the one process that fetches `key` from the read-through's source, for
    /// at most `lifetime`; see ``SharedTierFetchLock``.
    func lockFetch(of key: SharedTierKey, for lifetime: Duration) -> SharedTierFetchLock

    /// ``lockFetch(of:for:)``, unless the tier already holds a record for `key` (another
    /// process's fetch landed): then ``SharedTierFetchLock/stored``, with no lock taken. A
    /// tombstone is no record: the lock is taken. A tier that can should answer in one call
    /// (the default asks ``lockFetch(of:for:)``, then ``record(for:)``, and unlocks if it found one).
    func lockFetchUnlessStored(of key: SharedTierKey, for lifetime: Duration) -> SharedTierFetchLock

    /// Gives up a lock ``lockFetch(of:for:)`` returned as acquired (after the fetch stored its
    /// result, or failed).
    func unlockFetch(_ lock: SharedTierFetchLock)

    /// Whether giving up `lock` still needs ``unlockFetch(_:)``: false when the tier gave it up
    /// already (a tier may release a lock with the publication of the record its holder
    /// stored). Never blocks; the default answers true.
    func needsUnlock(_ lock: SharedTierFetchLock) -> Bool

    /// The database is closing in this process: stop delivering invalidations to it.
    func detach()
}

extension SharedTierAttachment {
    /// ``SharedTierAttachment/lockFetchUnlessStored(of:for:)`` in two calls: the lock, then the
    /// record (a lock may be free because its holder just stored the record and let go).
    public func lockFetchUnlessStored(of key: SharedTierKey, for lifetime: Duration) -> SharedTierFetchLock {
        let lock = lockFetch(of: key, for: lifetime)
        guard case .acquired = lock, record(for: key) != nil else { return lock }
        unlockFetch(lock)
        return .stored
    }

    /// ``SharedTierAttachment/needsUnlock(_:)`` for a tier that gives up locks only when told.
    public func needsUnlock(_ lock: SharedTierFetchLock) -> Bool {
        true
    }

    /// ``SharedTierAttachment/lookup(_:)`` for a tier that only answers ``record(for:)``.
    public func lookup(_ key: SharedTierKey) -> SharedTierAnswer {
        record(for: key).map { .record($0) } ?? .unavailable
    }
}

/// What a ``SharedTierAttachment/lookup(_:)`` found.
public enum SharedTierAnswer: Sendable {
    /// The tier holds this record for the key.
    case record(SharedTierRecord)
    /// The key was removed at this version (the tier keeps such tombstones for a while).
    case removed(SharedTierVersion)
    /// The tier holds nothing for the key.
    case absent
    /// The tier could not be asked (unreachable, not following its invalidations yet).
    case unavailable
}

/// A key's change as the tier publishes it, with its version: a node drops its local record of
/// the key only if that record is older (``SharedTierVersion``).
public struct SharedTierChange: Hashable, Sendable {
    /// The key that was set or removed.
    public var key: SharedTierKey
    /// The version of the record set, or of the removal.
    public var version: SharedTierVersion

    /// A change of `key` to `version`.
    public init(key: SharedTierKey, version: SharedTierVersion) {
        self.key = key
        self.version = version
    }
}

/// What the database owes the tier for one key, from its durable outbox
/// (``SharedTierDatabase/pendingPublication(for:)``).
public enum SharedTierPublication: Sendable {
    /// Store this record (the one stored locally now) with this version.
    case set(SharedTierRecord, SharedTierVersion)
    /// The key was removed at this version.
    case removed(SharedTierVersion)
}

/// A key as the shared tier sees it: a collection (nil: the store's own keys) and a key.
/// The database is the attachment's.
public struct SharedTierKey: Hashable, Sendable {
    /// The collection's name; nil for the store's own keys.
    public var collection: String?
    /// The key, as the application wrote it.
    public var key: String

    /// The key `key` of `collection` (nil: the store's own keys).
    public init(collection: String?, key: String) {
        self.collection = collection
        self.key = key
    }
}

/// A record in the shared tier: the bytes a local store keeps for it (its envelope with its
/// checksum, then the payload) and how long the tier keeps it.
public struct SharedTierRecord: Sendable {
    /// The record's bytes, as ModelStore stores them locally.
    public var bytes: [UInt8]
    /// How long the tier keeps it from now; nil: until it is removed. A record read from the
    /// tier is stored locally with at most this lifetime left.
    public var remainingLifetime: Duration?

    /// A record of `bytes` that the tier keeps for `remainingLifetime` (nil: until removed).
    public init(bytes: [UInt8], remainingLifetime: Duration?) {
        self.bytes = bytes
        self.remainingLifetime = remainingLifetime
    }
}

/// What a write changed, as the shared tier publishes it to other processes: names, never values.
public enum SharedTierInvalidation: Hashable, Sendable {
    /// These keys were set or removed (by a tier that does not say at which version: a node
    /// drops its local record of each, whatever its version).
    case keys([SharedTierKey])
    /// These keys were set or removed at these versions: a node drops its local record of each
    /// key only if it is older.
    case versioned([SharedTierChange])
    /// Every key of `collection` (nil: the store's own keys) that starts with `prefix`.
    case prefix(String, collection: String?)
    /// Every record of the database tagged `tag`, in any collection, whose version is at most
    /// `version` (the removal's, from the removing node's fleet clock: records written with the
    /// tag after the removal stay); nil: every such record, whatever its version (an outbox
    /// entry of a release before versioned tag removals, or a tier that does not say).
    case tag(String, version: SharedTierVersion? = nil)
    /// Every record of the whole database.
    case database
}

/// What ``SharedTierAttachment/lockFetch(of:for:)`` got.
public enum SharedTierFetchLock: Sendable {
    /// This process holds the lock: it fetches, stores, then unlocks with this value. `token`
    /// tells this holder's lock from a later holder's.
    case acquired(SharedTierKey, token: String)
    /// Another process holds it: wait for the record to land in the tier (poll
    /// ``SharedTierAttachment/lockFetchUnlessStored(of:for:)``, which answers ``stored`` then),
    /// or for the lock to go.
    case heldElsewhere
    /// The tier cannot be reached: fetch as if alone.
    case unavailable
    /// No lock was taken: the tier already holds a record for the key (another process's fetch
    /// landed); read it. Only ``SharedTierAttachment/lockFetchUnlessStored(of:for:)`` answers this.
    case stored
}
