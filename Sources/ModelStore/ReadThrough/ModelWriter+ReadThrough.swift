public import Foundation

extension ModelWriter {
    /// Returns the stored model for `key`, fetching, storing and returning a fresh one when
    /// it is missing or expired: a read-through cache in one call.
    ///
    /// ```swift
    /// let user = try await store.object(User.self, forKey: "user:42") {
    ///     try await api.fetchUser(42)
    /// }
    /// ```
    ///
    /// Concurrent calls for the same key in this process share exactly one fetch: the first
    /// caller starts it, the others wait for its result, and a caller that read the store just
    /// before the fetch stored its model reads the store again rather than fetching twice.
    /// Keys are compared by their bytes, as LevelDB stores them: a fetch for "é" (U+00E9)
    /// never answers a caller for "e\u{301}". If the fetch throws, every waiter gets the
    /// error and the next call fetches again. An expired record is not removed before the
    /// fetch: the fetched model replaces it, and if the fetch fails it stays for stale reads.
    ///
    /// A cancelled caller stops waiting at once and throws `CancellationError`; the fetch
    /// goes on for the other callers and its model is stored. When the last caller waiting
    /// for it is cancelled, the fetch's task is cancelled and what it returns is not stored.
    ///
    /// The fetch runs in a task of its own, shared by every caller for the key. The closure
    /// is `sending` rather than `@Sendable`: it may capture a client that is not `Sendable`
    /// (the caller hands it over), or call a `@MainActor` client.
    ///
    /// This is ``object(_:forKey:options:fetch:)`` with ``ReadThroughOptions/lifetime`` set to
    /// `lifetime` and ``ReadThroughOptions/staleIfError`` to `.infinity` or nil; that overload
    /// adds timeouts, refresh-ahead, validators and negative caching.
    ///
    /// - Parameters:
    ///   - type: The model's type.
    ///   - key: The record's key.
    ///   - lifetime: A lifetime for the fetched record that wins over the store's policy;
    ///     nil uses the policy.
    ///   - staleIfError: Whether to return an expired record (without removing it) when the
    ///     fetch fails, for example while offline. The fetch's error is thrown if there is
    ///     no record at all.
    ///   - fetch: Produces a fresh model, usually from the network.
    /// - Throws: The fetch's error; `CancellationError` if the caller's task is cancelled;
    ///   ``ModelStoreError/readThroughTypeMismatch(key:requested:inFlight:)`` if a fetch for
    ///   `key` as another type is running; ``ModelStoreError/invalidPolicy(reason:)`` for a
    ///   bad lifetime (before fetching); errors of reading or storing as ``ModelReader/object(_:forKey:)``
    ///   and ``ModelWriter/set(_:forKey:expiresAfter:metadata:tags:)-7tnvs``.
    public func object<Value: Codable & Sendable>(
        _ type: Value.Type,
        forKey key: String,
        expiresAfter lifetime: TimeInterval? = nil,
        staleIfError: Bool = false,
        fetch: sending @escaping () async throws -> Value
    ) async throws -> Value {
        try await _scope.readThrough(type, forKey: key, lifetime: lifetime, staleIfError: staleIfError, fetch: fetch)
    }

    /// Returns the stored model for `key`, fetching a fresh one when it is missing or expired,
    /// with the fail-safe, timeouts, refresh-ahead and negative caching of `options`.
    ///
    /// ```swift
    /// var options = ReadThroughOptions()
    /// options.lifetime = 300
    /// options.staleIfError = 3_600
    /// let user = try await store.object(User.self, forKey: "user:42", options: options) { previous in
    ///     let etag = try previous?.metadata(HTTPInfo.self)?.etag
    ///     switch try await api.user(42, ifNoneMatch: etag) {
    ///     case let .ok(user, etag, maxAge): return .value(user, expiresAfter: maxAge, metadata: HTTPInfo(etag: etag))
    ///     case let .notModified(maxAge):    return .notModified(expiresAfter: maxAge)
    ///     case .notFound:                   return .notFound
    ///     }
    /// }
    /// ```
    ///
    /// What a call does, in order:
    /// 1. If a ``FetchResult/notFound`` for `key` is remembered (``ReadThroughOptions/notFoundLifetime``),
    ///    it returns nil without fetching.
    /// 2. A live record is returned at once (a *hit*). If it is older than
    ///    ``ReadThroughOptions/refreshAhead`` of its lifetime, one background refresh starts for
    ///    the key (never two at a time); its failure is logged, never thrown, and leaves the record.
    /// 3. Otherwise the call fetches, or joins the fetch in flight for `key`: concurrent callers
    ///    in this process share exactly one fetch (keys compared by bytes). `fetch` receives the
    ///    stored entry even if expired, so it can send validators. Its result is stored:
    ///    ``FetchResult/value(_:expiresAfter:metadata:)`` replaces the record,
    ///    ``FetchResult/notModified(expiresAfter:)`` keeps it with a new lifetime,
    ///    ``FetchResult/notFound`` removes it and the call returns nil.
    /// 4. A failed fetch never removes the record. Within ``ReadThroughOptions/staleIfError`` of its
    ///    expiry, the expired record is returned instead of the error (*fail-safe*). With
    ///    ``ReadThroughOptions/failSafeThrottle``, calls for the record in the following seconds
    ///    get that stale record without fetching, until a write of the key or the throttle's end.
    /// 5. With such a usable stale record, ``ReadThroughOptions/softTimeout`` returns it when the
    ///    fetch takes longer; ``ReadThroughOptions/hardTimeout`` bounds every wait (the stale record
    ///    if allowed, else ``ModelStoreError/fetchTimedOut(key:after:)``). After a timeout the fetch
    ///    goes on in the background and stores its result for later reads.
    ///
    /// A cancelled caller stops waiting at once and throws `CancellationError` (never a stale
    /// record); the fetch goes on for the others. When the last caller waiting for it is
    /// cancelled (and none timed out), the fetch is cancelled and stores nothing.
    ///
    /// Counters (hits, misses, stale served, fail-safe throttled, fetches, failures, coalesced waits,
    /// refresh-aheads, not-found hits, timeouts) are reported through swift-metrics, labelled `database` and
    /// `collection` (`""` here: the store's own keys).
    ///
    /// A hit runs on the caller's executor, as ``ModelReader/object(_:forKey:)`` would (the function is
    /// `nonisolated(nonsending)`); fetching, refreshing and storing run on the global concurrent
    /// executor, never on the caller's actor.
    ///
    /// - Parameters:
    ///   - type: The model's type.
    ///   - key: The record's key.
    ///   - options: Lifetimes, fail-safe, timeouts, refresh-ahead, negative caching.
    ///   - fetch: Gets the stored entry (nil if none, possibly expired) and asks the source.
    ///     It is `sending`, not `@Sendable`: it may capture a client that is not `Sendable`.
    /// - Returns: The model, or nil when the source answered ``FetchResult/notFound`` (now or
    ///   within ``ReadThroughOptions/notFoundLifetime``).
    /// - Throws: ``ModelStoreError/invalidPolicy(reason:)`` for bad options (before fetching);
    ///   the fetch's error when nothing usable is stored; ``ModelStoreError/fetchTimedOut(key:after:)``;
    ///   ``ModelStoreError/notModifiedWithoutRecord(key:)``; `CancellationError`;
    ///   ``ModelStoreError/readThroughTypeMismatch(key:requested:inFlight:)`` if a fetch for `key`
    ///   as another type is running; errors of reading and storing as ``ModelReader/object(_:forKey:)`` and
    ///   ``ModelWriter/set(_:forKey:expiresAfter:metadata:tags:)-7tnvs``.
    @inlinable
    nonisolated(nonsending)
    public func object<Value: Codable & Sendable>(
        _ type: Value.Type,
        forKey key: String,
        options: ReadThroughOptions,
        fetch: sending @escaping (ModelStore.Entry<Value>?) async throws -> FetchResult<Value>
    ) async throws -> Value? {
        try await _scope.readThrough(type, forKey: key, options: options, fetch: fetch)
    }
}
