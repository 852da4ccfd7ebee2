/// A user as the server sends it and the client caches it.
///
/// `revision` is the server's request count when it built the response, so a test (or a
/// person running the example) can tell a cached copy from a fresh fetch.
public struct User: Codable, Sendable, Hashable {
    /// The user's identifier, also the cache key.
    public var id: String
    /// The user's display name.
    public var name: String
    /// The user's e-mail address.
    public var email: String
    /// Which request to the server produced this copy (1 for the first request).
    public var revision: Int

    /// Creates a user.
    public init(id: String, name: String, email: String, revision: Int) {
        self.id = id
        self.name = name
        self.email = email
        self.revision = revision
    }
}

/// The HTTP paths the server answers and the client calls.
public enum UserAPI {
    /// `GET /users/{id}`: the user as JSON.
    public static func userPath(_ id: String) -> String { "/users/\(id)" }

    /// `GET /requests`: how many user requests the server has answered, as plain text.
    public static let requestCountPath = "/requests"
}
