public import Foundation

extension ModelStore.Collection {
    /// Returns the model stored for `key` in this collection, or fetches, stores and returns it
    /// if it is missing or expired; concurrent misses of one key share one fetch. A fetched model
    /// is stored with `lifetime`, else with the collection's policy, else by the store's. See
    /// ``ModelStore/object(_:forKey:expiresAfter:staleIfError:fetch:)``.
    ///
    /// ```swift
    /// let user = try await users.object(User.self, forKey: "42") { try await api.user(42) }
    /// ```
    public func object<Value: Codable & Sendable>(
        _ type: Value.Type,
        forKey key: String,
        expiresAfter lifetime: TimeInterval? = nil,
        staleIfError: Bool = false,
        fetch: sending @escaping () async throws -> Value
    ) async throws -> Value {
        try await scope.readThrough(type, forKey: key, lifetime: lifetime, staleIfError: staleIfError, fetch: fetch)
    }

    /// ``ModelStore/object(_:forKey:options:fetch:)`` in this collection: validators, fail-safe,
    /// timeouts, refresh-ahead and negative caching, per record of the collection. A fetched
    /// model without a lifetime of its own lives ``ReadThroughOptions/lifetime``, else the
    /// collection's policy, else the store's; counters carry the label `collection`.
    ///
    /// ```swift
    /// let user: User? = try await users.object(User.self, forKey: "42", options: options) { previous in
    ///     .value(try await api.user(42))
    /// }
    /// ```
    @inlinable
    nonisolated(nonsending)
    public func object<Value: Codable & Sendable>(
        _ type: Value.Type,
        forKey key: String,
        options: ReadThroughOptions,
        fetch: sending @escaping (ModelStore.Entry<Value>?) async throws -> FetchResult<Value>
    ) async throws -> Value? {
        try await scope.readThrough(type, forKey: key, options: options, fetch: fetch)
    }
}
