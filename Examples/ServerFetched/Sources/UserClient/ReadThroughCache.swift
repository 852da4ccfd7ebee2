public import Foundation
public import ModelStore

/// Where a read-through lookup found its value.
public enum ReadThroughSource: String, Sendable {
    /// A record in the store that had not expired.
    case store
    /// A fresh fetch from the origin, now stored.
    case origin
    /// An expired record, returned because the origin could not be reached and the caller
    /// allowed stale values.
    case stale
}

/// A value a read-through lookup returned, with where it came from and when it was stored.
public struct ReadThroughResult<Value: Sendable>: Sendable {
    /// The value.
    public let value: Value
    /// Where it came from.
    public let source: ReadThroughSource
    /// When the value was stored (for ``ReadThroughSource/origin``, just now).
    public let storedAt: Date
}

/// A read-through cache over a ``ModelStore``: fresh records come from the store, missing or
/// expired ones are fetched from the origin and stored, and concurrent lookups of one key
/// share a single fetch.
///
/// ```swift
/// let store = try ModelStore(name: "users", policy: .custom(60))
/// let cache = try ReadThroughCache<User>(store: store) { id in try await fetcher.user(id) }
/// let user = try await cache.value(forKey: "42").value
/// ```
///
/// All the read-through logic of the example is in this one type, so it can later be
/// replaced by the library's own `store.object(_:forKey:fetch:)`.
public actor ReadThroughCache<Value: Codable & Sendable> {
    private let store: ModelStore
    private let recordsOfAnyAge: ModelStore
    private let fetch: @Sendable (String) async throws -> Value
    /// One fetch per key at a time; later lookups of the key await the same task.
    private var inFlight: [String: Task<Value, any Error>] = [:]

    /// Creates a cache over `store`, whose policy decides when records expire.
    ///
    /// - Parameters:
    ///   - store: The database the cache reads and writes.
    ///   - fetch: Fetches the value for a key from the origin.
    /// - Throws: ``ModelStoreError`` if the store's database cannot be opened a second time.
    public init(store: ModelStore, fetch: @escaping @Sendable (String) async throws -> Value) throws {
        self.store = store
        self.fetch = fetch
        // TODO(lead): use includingExpired. Until `entry(_:forKey:includingExpired: true)` lands,
        // a second instance with policy .never on the same database (one shared LevelDB
        // handle) reads records of any age. Reading through `store` instead would delete an
        // expired record on the spot, and that record is exactly the stale copy a caller may
        // need while the origin is down. (.never still honours per-record deadlines, which
        // this cache never writes.)
        recordsOfAnyAge = try ModelStore(name: store.name, policy: .never, configuration: store.configuration)
    }

    /// Returns the value for `key`: from the store while it is fresh, otherwise from the
    /// origin (storing it).
    ///
    /// - Parameters:
    ///   - key: The key to look up.
    ///   - allowingStale: Whether to return an expired record when the origin fails, rather
    ///     than throwing the origin's error.
    /// - Throws: The origin's error when there is no fresh record (and no stale one, or stale
    ///   ones are not allowed); ``ModelStoreError`` from the store.
    public func value(forKey key: String, allowingStale: Bool = false) async throws -> ReadThroughResult<Value> {
        let stored = try recordsOfAnyAge.entry(Value.self, forKey: key)
        if let stored, isFresh(stored) {
            return ReadThroughResult(value: stored.value, source: .store, storedAt: stored.storedAt)
        }
        do {
            let value = try await fetchOnce(key)
            return ReadThroughResult(value: value, source: .origin, storedAt: store.configuration.now())
        } catch {
            guard allowingStale, let stored else { throw error }
            return ReadThroughResult(value: stored.value, source: .stale, storedAt: stored.storedAt)
        }
    }

    /// Whether `entry` is still fresh under the store's policy. The same rule as ModelStore's:
    /// a record's own deadline wins, otherwise `storedAt` plus the policy's lifetime.
    private func isFresh(_ entry: ModelStore.Entry<Value>) -> Bool {
        let deadline = entry.expiresAt ?? store.policy.timeToLive.map { entry.storedAt.addingTimeInterval($0) }
        guard let deadline else { return true }
        return store.configuration.now() < deadline
    }

    /// Fetches and stores `key`, or joins the fetch already running for it.
    private func fetchOnce(_ key: String) async throws -> Value {
        if let running = inFlight[key] {
            return try await running.value
        }
        let task = Task { [store, fetch] in
            let value = try await fetch(key)
            try store.set(value, forKey: key)
            return value
        }
        inFlight[key] = task
        // Only the caller that started the fetch removes it: by the time it resumes the value is
        // stored, so a lookup arriving afterwards finds it fresh instead of fetching again.
        defer { inFlight[key] = nil }
        return try await task.value
    }
}
