public import Foundation
public import UserAPI

#if canImport(FoundationNetworking)
import FoundationNetworking  // URLSession lives here on Linux
#endif

/// The validators of a stored user response, kept by ModelStore beside the user so the next
/// fetch can ask "has it changed?" with `If-None-Match`.
public struct HTTPInfo: Codable, Sendable, Hashable {
    /// The response's `ETag`, if it sent one.
    public var etag: String?

    /// Creates validators.
    public init(etag: String?) {
        self.etag = etag
    }
}

/// What the server answered a conditional user request.
public enum UserAnswer: Sendable, Equatable {
    /// 200: the user, its `ETag` and its `Cache-Control: max-age` in seconds (nil if absent).
    case ok(User, etag: String?, maxAge: TimeInterval?)
    /// 304: the copy named by `If-None-Match` is current, for `max-age` more seconds.
    case notModified(maxAge: TimeInterval?)
    /// 404: there is no such user.
    case notFound
}

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
        // ModelStore is the cache here; an HTTP cache underneath would answer for the server
        // and hide requests (and 304s) from the server's counters.
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.timeoutIntervalForRequest = timeout
        session = URLSession(configuration: configuration)
    }

    /// Asks the server for user `id`, conditionally when `ifNoneMatch` is given.
    ///
    /// - Throws: ``FetchError/status(_:url:)`` for an answer other than 200, 304 or 404,
    ///   `URLError` when the server cannot be reached, or a `DecodingError` for a malformed body.
    public func user(_ id: String, ifNoneMatch etag: String? = nil) async throws -> UserAnswer {
        let url = baseURL.appendingPathComponent(UserAPI.userPath(id))
        var request = URLRequest(url: url)
        if let etag { request.setValue(etag, forHTTPHeaderField: "If-None-Match") }
        let (data, response) = try await session.data(for: request)
        let http = response as? HTTPURLResponse
        let maxAge = Self.maxAge(http?.value(forHTTPHeaderField: "Cache-Control"))
        switch http?.statusCode ?? 0 {
        case 200:
            let user = try JSONDecoder().decode(User.self, from: data)
            return .ok(user, etag: http?.value(forHTTPHeaderField: "ETag"), maxAge: maxAge)
        case 304: return .notModified(maxAge: maxAge)
        case 404: return .notFound
        case let status: throw FetchError.status(status, url: url)
        }
    }

    /// The `max-age` directive of a `Cache-Control` value in seconds, if it has a positive one
    /// (ModelStore wants positive lifetimes; 0 would mean "do not keep", which this example's
    /// server never sends).
    static func maxAge(_ cacheControl: String?) -> TimeInterval? {
        guard let cacheControl else { return nil }
        for directive in cacheControl.split(separator: ",") {
            let parts = directive.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces).lowercased() == "max-age",
                let seconds = Int(parts[1].trimmingCharacters(in: .whitespaces)), seconds > 0
            else { continue }
            return TimeInterval(seconds)
        }
        return nil
    }
}

/// A fetch that reached the server but got an answer the client does not understand.
public enum FetchError: Error, CustomStringConvertible {
    /// The server answered with an HTTP status other than 200, 304 or 404.
    case status(Int, url: URL)

    public var description: String {
        switch self {
        case .status(let status, let url): return "The server answered \(status) for \(url)."
        }
    }
}
