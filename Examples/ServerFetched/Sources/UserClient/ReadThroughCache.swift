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
/// All the read-through logic of the example is in this one type. ModelStore's own
/// `store.object(_:forKey:staleIfError:fetch:)` does the same in one call, except that a
/// lookup with `staleIfError: false` deletes an expired record before fetching, so after a
/// failed fetch a later stale lookup finds nothing; this type keeps the stale copy until a
/// fetch replaces it.
public actor ReadThroughCache<Value: Codable & Sendable> {
    private let store: ModelStore
    private let fetch: @Sendable (String) async throws -> Value
    /// One fetch per key at a time; later lookups of the key await the same task.
    private var inFlight: [String: Task<Value, any Error>] = [:]

    /// Creates a cache over `store`, whose policy decides when records expire.
    ///
    /// - Parameters:
    ///   - store: The database the cache reads and writes.
    ///   - fetch: Fetches the value for a key from the origin.
    public init(store: ModelStore, fetch: @escaping @Sendable (String) async throws -> Value) {
        self.store = store
        self.fetch = fetch
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
        // Read expired records too, without removing them: a plain read would delete an expired
        // record on the spot, and it is exactly the stale copy a caller may need while the
        // origin is down (even one that did not ask for stale values this time).
        let stored = try store.entry(Value.self, forKey: key, includingExpired: true)
        if let stored, !stored.isExpired {
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
