public import Hummingbird

/// Where a read-through lookup found its value.
public enum ReadThroughSource: String, Sendable {
    /// A value in the cache that had not expired.
    case store
    /// A fresh fetch from the origin, now cached.
    case origin
    /// The last value fetched, past its lifetime, returned because the origin could not be
    /// reached and the caller allowed stale values.
    case stale
}

/// A value a read-through lookup returned, with where it came from.
public struct ReadThroughResult<Value: Sendable>: Sendable {
    /// The value.
    public let value: Value
    /// Where it came from.
    public let source: ReadThroughSource
    /// How long the value stays fresh in the cache (nil if it never expires).
    public let timeToLive: Duration?
}

/// A read-through cache over Hummingbird's `PersistDriver` API, backed by
/// `ModelStorePersistDriver`: fresh values come from the driver,
/// missing or expired ones are fetched from the origin and stored, and concurrent lookups of
/// one key share a single fetch.
///
/// ```swift
/// let persist = try ModelStorePersistDriver(name: "users")
/// let cache = ReadThroughCache<User>(persist: persist, lifetime: .seconds(60)) { id in
///     try await fetcher.user(id)
/// }
/// let user = try await cache.value(forKey: "42").value
/// ```
///
/// The driver stores everything; this type adds only what a key/value cache leaves to its
/// caller. An expired key is absent in the driver (Redis semantics), so to serve a stale value
/// while the origin is down, each fetch also stores a "last known good" copy under
/// `stale:<key>`, with a lifetime of its own.
public actor ReadThroughCache<Value: Codable & Sendable> {
    private let persist: any PersistDriver
    private let lifetime: Duration
    private let staleLifetime: Duration
    private let fetch: @Sendable (String) async throws -> Value
    /// One fetch per key at a time; later lookups of the key await the same task.
    private var inFlight: [String: Task<Value, any Error>] = [:]

    /// Creates a cache over `persist`.
    ///
    /// - Parameters:
    ///   - persist: Where values are kept (a `ModelStorePersistDriver`
    ///     keeps them across restarts).
    ///   - lifetime: How long a fetched value is served without asking the origin.
    ///   - staleLifetime: How long the last fetched value stays available for stale reads.
    ///   - fetch: Fetches the value for a key from the origin.
    public init(
        persist: any PersistDriver, lifetime: Duration, staleLifetime: Duration = .seconds(7 * 24 * 60 * 60),
        fetch: @escaping @Sendable (String) async throws -> Value
    ) {
        self.persist = persist
        self.lifetime = lifetime
        self.staleLifetime = staleLifetime
        self.fetch = fetch
    }

    /// Returns the value for `key`: from the cache while it is fresh, otherwise from the
    /// origin (caching it).
    ///
    /// - Parameters:
    ///   - key: The key to look up.
    ///   - allowingStale: Whether to return the last fetched value when the origin fails,
    ///     rather than throwing the origin's error.
    /// - Throws: The origin's error when there is no fresh value (and no stale one, or stale
    ///   ones are not allowed); the driver's errors.
    public func value(forKey key: String, allowingStale: Bool = false) async throws -> ReadThroughResult<Value> {
        if let fresh = try await persist.getWithTTL(key: key, as: Value.self) {
            return ReadThroughResult(value: fresh.object, source: .store, timeToLive: fresh.ttl)
        }
        do {
            let value = try await fetchOnce(key)
            return ReadThroughResult(value: value, source: .origin, timeToLive: lifetime)
        } catch {
            guard allowingStale, let stale = try await persist.get(key: Self.staleKey(key), as: Value.self) else {
                throw error
            }
            return ReadThroughResult(value: stale, source: .stale, timeToLive: nil)
        }
    }

    /// The key of the last fetched copy of `key`, kept for stale reads.
    static func staleKey(_ key: String) -> String { "stale:\(key)" }

    /// Fetches and stores `key`, or joins the fetch already running for it.
    private func fetchOnce(_ key: String) async throws -> Value {
        if let running = inFlight[key] {
            return try await running.value
        }
        let task = Task { [persist, fetch, lifetime, staleLifetime] in
            let value = try await fetch(key)
            try await persist.set(key: key, value: value, expires: lifetime)
            try await persist.set(key: Self.staleKey(key), value: value, expires: staleLifetime)
            return value
        }
        inFlight[key] = task
        // Only the caller that started the fetch removes it: by the time it resumes the value is
        // stored, so a lookup arriving afterwards finds it fresh instead of fetching again.
        defer { inFlight[key] = nil }
        return try await task.value
    }
}
