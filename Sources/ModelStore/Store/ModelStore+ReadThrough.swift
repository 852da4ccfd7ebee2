public import Foundation

extension ModelStore {
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
    ///   bad lifetime (before fetching); errors of reading or storing as ``object(forKey:)``
    ///   and ``set(_:forKey:)``.
    public func object<Value: Codable & Sendable>(
        _ type: Value.Type,
        forKey key: String,
        expiresAfter lifetime: TimeInterval? = nil,
        staleIfError: Bool = false,
        fetch: sending @escaping () async throws -> Value
    ) async throws -> Value {
        if let lifetime { try UpdatePolicy.validate(lifetime: lifetime, what: "record lifetime") }
        var options = ReadThroughOptions()
        options.lifetime = lifetime
        options.staleIfError = staleIfError ? .infinity : nil
        let value = try await readThrough(
            type, forKey: key, options: options, requiresValue: true, in: nil,
            fetch: { _ in .value(try await fetch()) })
        guard let value else {
            // `requiresValue` reads again rather than return nil; kept as a typed error, not a crash.
            throw ModelStoreError.readThroughTypeMismatch(
                key: key, requested: String(describing: type), inFlight: "a fetch that answered notFound")
        }
        return value
    }
}
