public import Foundation
public import UserAPI

#if canImport(FoundationNetworking)
import FoundationNetworking  // URLSession lives here on Linux
#endif

/// Fetches users from the server with `URLSession`.
public struct UserFetcher: Sendable {
    /// The server's base URL, such as `http://127.0.0.1:8080`.
    public let baseURL: URL
    private let session: URLSession

    /// Creates a fetcher for the server at `baseURL`.
    ///
    /// - Parameter timeout: Seconds to wait for an answer before giving up.
    public init(baseURL: URL, timeout: TimeInterval = 5) {
        self.baseURL = baseURL
        let configuration = URLSessionConfiguration.ephemeral
        // ModelStore is the cache here; an HTTP cache underneath would hide fetches from the
        // server's request count.
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.timeoutIntervalForRequest = timeout
        session = URLSession(configuration: configuration)
    }

    /// Fetches the user `id` from the server.
    ///
    /// - Throws: ``FetchError/status(_:url:)`` for an answer other than 200, `URLError` when
    ///   the server cannot be reached, or a `DecodingError` for a malformed body.
    public func user(_ id: String) async throws -> User {
        let url = baseURL.appendingPathComponent(UserAPI.userPath(id))
        let (data, response) = try await session.data(from: url)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard status == 200 else { throw FetchError.status(status, url: url) }
        return try JSONDecoder().decode(User.self, from: data)
    }
}

/// A fetch that reached the server but did not get a user back.
public enum FetchError: Error, CustomStringConvertible {
    /// The server answered with an HTTP status other than 200.
    case status(Int, url: URL)

    public var description: String {
        switch self {
        case .status(let status, let url): return "The server answered \(status) for \(url)."
        }
    }
}
