public import Foundation

extension ModelStore.Collection {
    /// Returns the model stored for `key` in this collection, or fetches, stores and returns
    /// it if it is missing or expired; concurrent misses of one key share one fetch.
    ///
    /// ```swift
    /// let user = try await users.object(User.self, forKey: "42") { try await api.user(42) }
    /// ```
    ///
    /// A fetched model is stored with `lifetime`, else with the collection's policy, else by
    /// the store's. Fetches are shared per record: the same key in another collection (or in
    /// the store itself) is another fetch.
    ///
    /// - Throws: As ``ModelStore/object(_:forKey:expiresAfter:staleIfError:fetch:)``.
    public func object<Value: Codable & Sendable>(
        _ type: Value.Type,
        forKey key: String,
        expiresAfter lifetime: TimeInterval? = nil,
        staleIfError: Bool = false,
        fetch: sending @escaping () async throws -> Value
    ) async throws -> Value {
        if let lifetime { try UpdatePolicy.validate(lifetime: lifetime, what: "record lifetime") }
        var options = ReadThroughOptions()
        options.lifetime = try lifetime ?? checked.lifetime
        options.staleIfError = staleIfError ? .infinity : nil
        let value = try await store.readThrough(
            type, forKey: key, options: options, requiresValue: true, in: self,
            fetch: { _ in .value(try await fetch()) })
        guard let value else {
            // `requiresValue` reads again rather than return nil; kept as a typed error, not a crash.
            throw ModelStoreError.readThroughTypeMismatch(
                key: key, requested: String(describing: type), inFlight: "a fetch that answered notFound")
        }
        return value
    }

    /// ``ModelStore/object(_:forKey:options:fetch:)`` in this collection: validators, fail-safe,
    /// timeouts, refresh-ahead and negative caching, per record of the collection.
    ///
    /// ```swift
    /// let user: User? = try await users.object(User.self, forKey: "42", options: options) { previous in
    ///     .value(try await api.user(42))
    /// }
    /// ```
    ///
    /// A fetched model without a lifetime of its own lives ``ReadThroughOptions/lifetime``, else the
    /// collection's policy, else the store's. A remembered `.notFound` is per record: the same key
    /// in another collection is fetched. Counters carry the label `collection` with the
    /// collection's name.
    ///
    /// - Throws: As ``ModelStore/object(_:forKey:options:fetch:)``.
    @inlinable
    nonisolated(nonsending)
    public func object<Value: Codable & Sendable>(
        _ type: Value.Type,
        forKey key: String,
        options: ReadThroughOptions,
        fetch: sending @escaping (ModelStore.Entry<Value>?) async throws -> FetchResult<Value>
    ) async throws -> Value? {
        // Inlinable and nonsending for the hit's cost, as the store's overload (which see).
        // The collection's lifetime is applied after the hit step, where a fetch stores.
        var probe = ReadThroughProbe()
        if ModelStore.isObjectCacheable(type) {
            var cached: Value? = nil
            if try readThroughCachedHit(
                forKey: key, options: options, probe: &probe,
                take: { value in
                    cached = value as? Value
                    return cached != nil
                }), let cached = cached.take()
            {
                if probe.isAnswer { return cached }
                return try await store.readThroughAfterHit(
                    cached, type, forKey: key, options: options, requiresValue: false, in: self, probe: probe,
                    fetch: fetch)
            }
        }
        let hit = try store.readThroughHit(
            type, forKey: key, options: options, requiresValue: false, in: self, probe: &probe)
        if probe.isAnswer { return hit }
        return try await store.readThroughAfterHit(
            hit, type, forKey: key, options: options, requiresValue: false, in: self, probe: probe, fetch: fetch)
    }
}
