public import Foundation
public import ModelStore
public import UserAPI

/// Looks users up through a ModelStore database, fetching from the user server only when the
/// stored copy is missing or expired.
///
/// ```swift
/// let store = try ModelStore(name: "users", policy: .custom(60))
/// let client = try UserClient(server: URL(string: "http://127.0.0.1:8080")!, store: store)
/// let lookup = try await client.user("42")
/// print(lookup.value.name, "from", lookup.source)
/// ```
public struct UserClient: Sendable {
    private let cache: ReadThroughCache<User>

    /// Creates a client for the server at `server`, caching in `store`.
    public init(server: URL, store: ModelStore, timeout: TimeInterval = 5) {
        let fetcher = UserFetcher(baseURL: server, timeout: timeout)
        cache = ReadThroughCache(store: store) { id in try await fetcher.user(id) }
    }

    /// Returns the user `id`, from the store while fresh, otherwise from the server.
    ///
    /// - Parameter allowingStale: Whether to fall back to an expired copy when the server
    ///   cannot be reached.
    /// - Throws: The fetch's error (a `URLError` when the server is down) when no usable copy
    ///   is stored.
    public func user(_ id: String, allowingStale: Bool = false) async throws -> ReadThroughResult<User> {
        try await cache.value(forKey: id, allowingStale: allowingStale)
    }
}
