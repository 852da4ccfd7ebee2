public import Foundation
public import ModelStore
import ModelStoreHummingbird
public import UserAPI

/// Looks users up through a ModelStore database (with ModelStore's Hummingbird persist
/// driver), fetching from the user server only when the cached copy is missing or expired.
///
/// ```swift
/// let store = try ModelStore(name: "users", policy: .custom(60))
/// let client = UserClient(server: URL(string: "http://127.0.0.1:8080")!, store: store)
/// let lookup = try await client.user("42")
/// print(lookup.value.name, "from", lookup.source)
/// ```
public struct UserClient: Sendable {
    private let cache: ReadThroughCache<User>

    /// Creates a client for the server at `server`, caching in `store`; a user stays fresh
    /// for the store policy's lifetime (a minute if the policy never expires).
    public init(server: URL, store: ModelStore, timeout: TimeInterval = 5) {
        let fetcher = UserFetcher(baseURL: server, timeout: timeout)
        let lifetime = Duration.seconds(store.policy.timeToLive ?? 60)
        cache = ReadThroughCache(persist: ModelStorePersistDriver(store: store), lifetime: lifetime) { id in
            try await fetcher.user(id)
        }
    }

    /// Returns the user `id`, from the cache while fresh, otherwise from the server.
    ///
    /// - Parameter allowingStale: Whether to fall back to the last fetched copy when the
    ///   server cannot be reached.
    /// - Throws: The fetch's error (a `URLError` when the server is down) when no usable copy
    ///   is stored.
    public func user(_ id: String, allowingStale: Bool = false) async throws -> ReadThroughResult<User> {
        try await cache.value(forKey: id, allowingStale: allowingStale)
    }
}
