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
    /// Concurrent calls for the same key in this process share one fetch: the first caller
    /// starts it, the others wait for its result. If the fetch throws, every waiter gets the
    /// error and the next call fetches again. An expired record is not removed before the
    /// fetch: the fetched model replaces it, and if the fetch fails it stays for stale reads.
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
    /// - Throws: The fetch's error; errors of reading or storing as ``object(forKey:)`` and
    ///   ``set(_:forKey:)``.
    public func object<Value: Codable & Sendable>(
        _ type: Value.Type,
        forKey key: String,
        expiresAfter lifetime: TimeInterval? = nil,
        staleIfError: Bool = false,
        fetch: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        // An expired record is kept (not purged) until the fetch replaces it, so a failed
        // fetch leaves it available to a later stale read.
        let current = try entry(type, forKey: key, includingExpired: true)
        if let current, !current.isExpired { return current.value }
        do {
            return try await coalescedFetch(type, forKey: key, lifetime: lifetime, fetch: fetch)
        } catch {
            if staleIfError, let current { return current.value }
            throw error
        }
    }

    private func coalescedFetch<Value: Codable & Sendable>(
        _ type: Value.Type,
        forKey key: String,
        lifetime: TimeInterval?,
        fetch: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        let database = try openDatabase()
        let task = database.fetches.withLock { running -> Task<any Sendable, any Error> in
            if let shared = running[key] { return shared }
            let task = Task<any Sendable, any Error> { [self] in
                defer { _ = database.fetches.withLock { $0.removeValue(forKey: key) } }
                let value = try await fetch()
                if let lifetime {
                    try set(value, forKey: key, expiresAfter: lifetime)
                } else {
                    try set(value, forKey: key)
                }
                return value
            }
            running[key] = task
            return task
        }
        let value = try await task.value
        guard let typed = value as? Value else {
            throw ModelStoreError.decodingFailed(
                key: key, type: String(describing: type),
                message: "a concurrent fetch for this key produced a \(Swift.type(of: value))")
        }
        return typed
    }
}
