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
        return try await store.readThrough(
            type, forKey: key, lifetime: lifetime ?? self.lifetime, staleIfError: staleIfError, space: space,
            fetch: fetch)
    }
}
