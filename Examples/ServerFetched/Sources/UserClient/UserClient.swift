public import Foundation
public import ModelStore
public import UserAPI

/// Looks users up through ModelStore's read-through API: a fresh stored user is returned
/// without a request; an expired one is revalidated with `If-None-Match`; the server's
/// `max-age` sets each record's lifetime. ModelStore does the rest (one request per key at a
/// time, stale copies when the server is down, remembered 404s), as `options` say.
///
/// ```swift
/// var options = ReadThroughOptions()
/// options.lifetime = 60            // when the server sends no max-age
/// options.staleIfError = 3_600     // serve up to an hour past expiry while the server is down
/// options.notFoundLifetime = 30    // remember a 404 for 30 s
/// let client = UserClient(server: URL(string: "http://127.0.0.1:8080")!, store: store, options: options)
/// if let user = try await client.user("ada") { print(user.name) }
/// ```
public struct UserClient: Sendable {
    private let fetcher: UserFetcher
    private let store: ModelStore
    /// How the store fetches, keeps and serves users.
    public let options: ReadThroughOptions

    /// Creates a client for the server at `server`, keeping users in `store`.
    ///
    /// - Parameter timeout: Seconds to wait for the server before the fetch fails.
    public init(server: URL, store: ModelStore, options: ReadThroughOptions, timeout: TimeInterval = 5) {
        fetcher = UserFetcher(baseURL: server, timeout: timeout)
        self.store = store
        self.options = options
    }

    /// The store key of user `id`.
    public static func key(_ id: String) -> String { "user:\(id)" }

    /// Returns user `id`: the stored copy while it is fresh, otherwise the server's answer.
    ///
    /// - Returns: The user, or nil when the server answered 404 (now, or within
    ///   `options.notFoundLifetime`).
    /// - Throws: The fetch's error (a `URLError` when the server is down) when no usable copy
    ///   is stored, or ModelStore's errors.
    public func user(_ id: String) async throws -> User? {
        try await store.object(User.self, forKey: Self.key(id), options: options) { [fetcher] previous in
            // The stored record (even expired) carries the ETag of the response it came from.
            let etag = try previous?.metadata(HTTPInfo.self)?.etag
            switch try await fetcher.user(id, ifNoneMatch: etag) {
            case let .ok(user, etag, maxAge): return .value(user, expiresAfter: maxAge, metadata: HTTPInfo(etag: etag))
            case let .notModified(maxAge): return .notModified(expiresAfter: maxAge)
            case .notFound: return .notFound
            }
        }
    }
}
