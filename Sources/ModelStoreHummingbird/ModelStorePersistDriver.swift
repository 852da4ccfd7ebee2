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
///   expiry of zero or less means already expired: nothing is stored;
/// - `get` of a value stored as another type throws `PersistError.invalidConversion`;
/// - every other error (disk full, a closed store) is thrown as ``ModelStore/ModelStoreError``.
///
/// `create` and `set` with KEEPTTL are atomic against every other write through a driver in
/// this process: each write of a key holds a lock chosen by the key's bytes (no other process
/// can open the database while it is open). Every call runs on a
/// Dispatch queue, never on Swift's cooperative pool, because LevelDB's calls block.
public struct ModelStorePersistDriver: PersistDriver {
    /// The database the driver reads and writes.
    public let store: ModelStore

    /// How long ``run()`` waits between two sweeps of expired records.
    public let sweepInterval: Duration

    private let locks = KeyLocks.shared

    /// Creates a driver over an open store.
    ///
    /// Open the store with the `.never` policy for the semantics above; with another policy,
    /// a value stored without an expiry expires by the policy.
    ///
    /// - Parameters:
    ///   - store: The database to keep the values in. ``shutdown()`` closes it.
    ///   - sweepInterval: How long ``run()`` waits between two removals of expired records.
    ///     Expired records read as absent at once; sweeping only gives their space back.
    public init(store: ModelStore, sweepInterval: Duration = .seconds(600)) {
        self.store = store
        self.sweepInterval = sweepInterval
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
    ///   - sweepInterval: How long ``run()`` waits between two sweeps of expired records.
    /// - Throws: ``ModelStore/ModelStoreError`` from opening the store.
    public init(
        name: String, configuration: ModelStore.Configuration = ModelStore.Configuration(),
        sweepInterval: Duration = .seconds(600)
    ) throws {
        let store = try ModelStore(name: name, policy: .never, configuration: configuration)
        self.init(store: store, sweepInterval: sweepInterval)
    }

    // MARK: - Service

    /// Removes expired records every ``sweepInterval`` until graceful shutdown or
    /// cancellation, then calls ``shutdown()``.
    ///
    /// Add the driver to the application's services to run it. Each sweep runs on a Dispatch
    /// queue, never on Swift's cooperative pool.
    ///
    /// - Throws: An error of a sweep or of closing the store, as ``ModelStore/ModelStoreError``;
    ///   the service group then stops the app as it does for any failed service.
    public func run() async throws {
        let store = store
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            do {
                let interval = sweepInterval
                try await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
            } catch is CancellationError {
                break
            }
            try await offload { _ = try store.removeExpiredObjects() }
        }
        try await shutdown()
    }

    /// Closes the store. Calls after it throw ``ModelStore/ModelStoreError/closed(path:)``.
    public func shutdown() async throws {
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
        let (store, locks) = (store, locks)
        try await offload {
            try locks.withLock(for: key) {
                // contains() treats an expired record as absent (and removes it), as Redis does.
                guard try !store.contains(key) else { throw PersistError.duplicate }
                try Self.write(value, forKey: key, lifetime: expires.map(\.secondsValue), in: store)
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
        let (store, locks) = (store, locks)
        try await offload {
            // Every write of the key takes its lock, not only KEEPTTL's read-then-write: a plain
            // set or remove landing between that read and write would otherwise be undone.
            try locks.withLock(for: key) {
                if let expires {
                    return try Self.write(value, forKey: key, lifetime: expires.secondsValue, in: store)
                }
                let now = store.configuration.now()
                // AnyStoredValue reads the record's expiry whatever type the old value has.
                let current = try store.entry(AnyStoredValue.self, forKey: key)
                let remaining = current?.expiresAt.map { $0.timeIntervalSince(now) }
                try Self.write(value, forKey: key, lifetime: remaining, in: store)
            }
        }
    }

    /// Returns the value stored under `key`, or nil if there is none or it has expired.
    ///
    /// - Throws: `PersistError.invalidConversion` if the stored value does not decode as
    ///   `Object`; ``ModelStore/ModelStoreError`` otherwise.
    public func get<Object: Codable & Sendable>(key: String, as object: Object.Type) async throws -> Object? {
        let store = store
        return try await offload {
            try Self.convertingDecodingErrors { try store.object(Object.self, forKey: key) }
        }
    }

    /// Returns the value stored under `key` and its remaining lifetime (nil if it never
    /// expires), or nil if there is none or it has expired.
    ///
    /// - Throws: As ``get(key:as:)``.
    public func getWithTTL<Object: Codable & Sendable>(
        key: String, as object: Object.Type
    ) async throws -> (object: Object, ttl: Duration?)? {
        let store = store
        return try await offload {
            let now = store.configuration.now()
            let entry = try Self.convertingDecodingErrors { try store.entry(Object.self, forKey: key) }
            guard let entry else { return nil }
            return (entry.value, entry.expiresAt.map { Duration.seconds($0.timeIntervalSince(now)) })
        }
    }

    /// Removes the value stored under `key`. Removing a missing key succeeds.
    ///
    /// - Throws: ``ModelStore/ModelStoreError``.
    public func remove(key: String) async throws {
        let (store, locks) = (store, locks)
        try await offload {
            try locks.withLock(for: key) { try store.removeObject(forKey: key) }
        }
    }

    // MARK: - Helpers

    /// Writes `value` with `lifetime` seconds to live (nil: none of its own); a lifetime of
    /// zero or less means the value is already expired, so the key is removed instead.
    private static func write<Object: Encodable>(
        _ value: Object, forKey key: String, lifetime: TimeInterval?, in store: ModelStore
    ) throws {
        switch lifetime {
        case nil: try store.set(value, forKey: key)
        case let seconds? where seconds > 0: try store.set(value, forKey: key, expiresAfter: seconds)
        case _?: try store.removeObject(forKey: key)
        }
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
