#if Hummingbird
import Foundation
public import Hummingbird
public import ModelStore
import ServiceLifecycle

/// A Hummingbird `PersistDriver` that keeps its key/value pairs in a ModelStore database on
/// disk, so they survive a restart of the app (sessions stay valid, cached pages stay warm).
///
/// ```swift
/// let persist = try ModelStorePersistDriver(name: "persist")
/// let app = Application(router: router, services: [persist])   // run() sweeps, then closes
/// try await persist.set(key: "greeting", value: "hello", expires: .seconds(60))
/// ```
///
/// Its semantics are Redis's, where Hummingbird's memory driver differs:
/// - an expired key is absent everywhere: `get` returns nil, `create` on it succeeds, and
///   `set` with a nil expiry stores a value that never expires;
/// - `set` with a nil expiry on a live key keeps that key's remaining lifetime (Redis KEEPTTL);
/// - expiry has the precision of the store's clock (well under a millisecond), and an
///   expiry of zero or less means already expired: nothing is stored; any longer expiry is
///   kept, up to the largest `Duration` (`getWithTTL` reports a remaining lifetime beyond
///   `.seconds(Int64.max)` as `.seconds(Int64.max)`);
/// - `get` of a value stored as another type throws `PersistError.invalidConversion`;
/// - every other error (disk full, a closed store) is thrown as ``ModelStore/ModelStoreError``.
///
/// It keeps its keys in the store's own key space, or in one ``ModelStore/ModelStore/Collection``
/// (``init(collection:sweepInterval:)``) so that sessions share a database with the app's other
/// records.
///
/// `create` and `set` with KEEPTTL are atomic against every other write through a driver in
/// this process: each write of a key holds a lock chosen by the key's bytes (no other process
/// can open the database while it is open). Every call runs on a
/// Dispatch queue, never on Swift's cooperative pool, because LevelDB's calls block.
public struct ModelStorePersistDriver: PersistDriver {
    /// The database the driver reads and writes.
    public let store: ModelStore

    /// The collection the driver keeps its keys in, or nil: the store's own keys.
    public let collection: ModelStore.Collection?

    /// How long ``run()`` waits between two sweeps of expired records: positive (``run()``
    /// throws ``ModelStore/ModelStoreError/invalidPolicy(reason:)`` otherwise); a longer wait
    /// than a year sweeps once a year.
    public let sweepInterval: Duration

    private let keys: DriverKeySpace
    private let locks = KeyLocks.shared

    /// Creates a driver over an open store.
    ///
    /// Open the store with the `.never` policy for the semantics above; with another policy,
    /// a value stored without an expiry expires by the policy.
    ///
    /// - Parameters:
    ///   - store: The database to keep the values in. ``shutdown()`` closes it.
    ///   - sweepInterval: How long ``run()`` waits between two removals of expired records
    ///     (positive). Expired records read as absent at once; sweeping only gives their space back.
    public init(store: ModelStore, sweepInterval: Duration = .seconds(600)) {
        self.store = store
        self.collection = nil
        self.sweepInterval = sweepInterval
        keys = .store(store)
    }

    /// Creates a driver that keeps its keys in `collection`, so that they share the store's
    /// database with its other collections and keys, never meeting them.
    ///
    /// ```swift
    /// let store = try ModelStore(name: "app", policy: .never)
    /// let persist = ModelStorePersistDriver(collection: store.collection("sessions"))
    /// ```
    ///
    /// Give the collection no policy (or `.never`) for the semantics above; with a policy, a
    /// value stored without an expiry expires by it.
    ///
    /// - Parameters:
    ///   - collection: Where to keep the values. ``shutdown()`` leaves its store open: the
    ///     database is shared, and its owner closes it.
    ///   - sweepInterval: How long ``run()`` waits between two removals of the collection's
    ///     expired records (positive).
    public init(collection: ModelStore.Collection, sweepInterval: Duration = .seconds(600)) {
        self.store = collection.store
        self.collection = collection
        self.sweepInterval = sweepInterval
        keys = .collection(collection)
    }

    /// Opens (or creates) the database `name` with the `.never` policy, and creates a driver
    /// over it.
    ///
    /// ```swift
    /// var configuration = ModelStore.Configuration()
    /// configuration.directory = URL(fileURLWithPath: "/var/lib/myapp")
    /// let persist = try ModelStorePersistDriver(name: "sessions", configuration: configuration)
    /// ```
    ///
    /// - Parameters:
    ///   - name: The database's name under the configuration's directory.
    ///   - configuration: Where databases live, the clock and the codec.
    ///   - sweepInterval: How long ``run()`` waits between two sweeps of expired records (positive).
    /// - Throws: ``ModelStore/ModelStoreError/invalidPolicy(reason:)`` for a `sweepInterval` of
    ///   zero or less, before anything touches the disk; ``ModelStore/ModelStoreError`` from
    ///   opening the store.
    public init(
        name: String, configuration: ModelStore.Configuration = ModelStore.Configuration(),
        sweepInterval: Duration = .seconds(600)
    ) throws {
        try Self.validate(sweepInterval: sweepInterval)
        let store = try ModelStore(name: name, policy: .never, configuration: configuration)
        self.init(store: store, sweepInterval: sweepInterval)
    }

    // MARK: - Service

    /// Removes expired records (the collection's only, for a driver over a collection) every
    /// ``sweepInterval`` until graceful shutdown or cancellation, then calls ``shutdown()``.
    ///
    /// Add the driver to the application's services to run it. Each sweep runs on a Dispatch
    /// queue, never on Swift's cooperative pool. An interval longer than a year sweeps once a
    /// year (a clock cannot wait `.seconds(Int64.max)`).
    ///
    /// - Throws: ``ModelStore/ModelStoreError/invalidPolicy(reason:)`` at once for a
    ///   ``sweepInterval`` of zero or less (it would sweep without pause); an error of a sweep
    ///   or of closing the store, as ``ModelStore/ModelStoreError``. The service group then
    ///   stops the app as it does for any failed service.
    public func run() async throws {
        try Self.validate(sweepInterval: sweepInterval)
        let keys = keys
        let wait = TimeBounds.sweepWait(sweepInterval)
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            do {
                try await cancelWhenGracefulShutdown { try await Task.sleep(for: wait) }
            } catch is CancellationError {
                break
            }
            try await offload { try keys.removeExpiredObjects() }
        }
        try await shutdown()
    }

    /// Closes the store; calls after it throw ``ModelStore/ModelStoreError/closed(path:)``. A
    /// driver over a collection leaves the store open: the database is shared, and the store's
    /// owner closes it.
    public func shutdown() async throws {
        guard collection == nil else { return }
        let store = store
        try await offload { try store.close() }
    }

    // MARK: - PersistDriver

    /// Stores `value` under `key` unless a value that has not expired is already there.
    ///
    /// - Parameters:
    ///   - key: The key, 1 to 65,536 UTF-8 bytes.
    ///   - value: The value, encoded with the store's codec.
    ///   - expires: How long the value lives; nil for ever (or the store's policy), zero or
    ///     less for not at all (the call succeeds and stores nothing).
    /// - Throws: `PersistError.duplicate` if a live value is stored under `key`;
    ///   ``ModelStore/ModelStoreError`` otherwise.
    public func create<Object: Codable & Sendable>(key: String, value: Object, expires: Duration?) async throws {
        let (keys, locks) = (keys, locks)
        try await offload {
            try locks.withLock(for: key) {
                // contains() treats an expired record as absent (and removes it), as Redis does.
                guard try !keys.contains(key) else { throw PersistError.duplicate }
                try Self.write(value, forKey: key, lifetime: expires.map(TimeBounds.seconds), in: keys)
            }
        }
    }

    /// Stores `value` under `key`, replacing what was there.
    ///
    /// - Parameters:
    ///   - key: The key, 1 to 65,536 UTF-8 bytes.
    ///   - value: The value, encoded with the store's codec.
    ///   - expires: How long the value lives; zero or less removes the key. With nil, a live
    ///     value's remaining lifetime is kept (Redis KEEPTTL), and a missing or expired key
    ///     gets a value that never expires (or expires by the store's policy).
    /// - Throws: ``ModelStore/ModelStoreError``.
    public func set<Object: Codable & Sendable>(key: String, value: Object, expires: Duration?) async throws {
        let (store, keys, locks) = (store, keys, locks)
        try await offload {
            // Every write of the key takes its lock, not only KEEPTTL's read-then-write: a plain
            // set or remove landing between that read and write would otherwise be undone.
            try locks.withLock(for: key) {
                if let expires {
                    return try Self.write(value, forKey: key, lifetime: TimeBounds.seconds(expires), in: keys)
                }
                let now = store.configuration.now()
                // AnyStoredValue reads the record's expiry whatever type the old value has.
                let current = try keys.entry(AnyStoredValue.self, forKey: key)
                let remaining = current?.expiresAt.map { $0.timeIntervalSince(now) }
                try Self.write(value, forKey: key, lifetime: remaining, in: keys)
            }
        }
    }

    /// Returns the value stored under `key`, or nil if there is none or it has expired.
    ///
    /// - Throws: `PersistError.invalidConversion` if the stored value does not decode as
    ///   `Object`; ``ModelStore/ModelStoreError`` otherwise.
    public func get<Object: Codable & Sendable>(key: String, as object: Object.Type) async throws -> Object? {
        let keys = keys
        return try await offload {
            try Self.convertingDecodingErrors { try keys.object(Object.self, forKey: key) }
        }
    }

    /// Returns the value stored under `key` and its remaining lifetime (nil if it never
    /// expires), or nil if there is none or it has expired. A remaining lifetime beyond
    /// `.seconds(Int64.max)` (the store keeps any finite one) is reported as `.seconds(Int64.max)`.
    ///
    /// - Throws: As ``get(key:as:)``.
    public func getWithTTL<Object: Codable & Sendable>(
        key: String, as object: Object.Type
    ) async throws -> (object: Object, ttl: Duration?)? {
        let (store, keys) = (store, keys)
        return try await offload {
            let now = store.configuration.now()
            let entry = try Self.convertingDecodingErrors { try keys.entry(Object.self, forKey: key) }
            guard let entry else { return nil }
            return (entry.value, entry.expiresAt.map { TimeBounds.duration(seconds: $0.timeIntervalSince(now)) })
        }
    }

    /// Removes the value stored under `key`. Removing a missing key succeeds.
    ///
    /// - Throws: ``ModelStore/ModelStoreError``.
    public func remove(key: String) async throws {
        let (keys, locks) = (keys, locks)
        try await offload {
            try locks.withLock(for: key) { try keys.removeObject(forKey: key) }
        }
    }

    // MARK: - Helpers

    /// Writes `value` with `lifetime` seconds to live (nil: none of its own); a lifetime of
    /// zero or less means the value is already expired, so the key is removed instead. Every
    /// lifetime here is finite (from a `Duration`, or a stored deadline minus now).
    private static func write<Object: Encodable>(
        _ value: Object, forKey key: String, lifetime: TimeInterval?, in keys: DriverKeySpace
    ) throws {
        switch lifetime {
        case let seconds? where !(seconds > 0): try keys.removeObject(forKey: key)
        default: try keys.set(value, forKey: key, lifetime: lifetime)
        }
    }

    /// Throws unless `sweepInterval` is positive: zero or less would sweep without pause.
    private static func validate(sweepInterval: Duration) throws(ModelStoreError) {
        try TimeBounds.validateInterval(
            sweepInterval, setting: "ModelStorePersistDriver's sweepInterval",
            otherwise: "a long one (more than a year sweeps once a year)")
    }

    /// Hummingbird's contract for a value of another type: `PersistError.invalidConversion`.
    private static func convertingDecodingErrors<Result>(_ body: () throws -> Result) throws -> Result {
        do {
            return try body()
        } catch ModelStoreError.decodingFailed {
            throw PersistError.invalidConversion
        }
    }
}
#endif
