/// A user as the server stores and sends it and the client caches it.
///
/// `revision` is the server's version of the record: 1 when it is created, one more for
/// each change. The server's `ETag` is built from it, so a test (or a person running the
/// example) can tell a revalidated copy from a changed one.
public struct User: Codable, Sendable, Hashable {
    /// The user's identifier, also part of the cache key.
    public var id: String
    /// The user's display name.
    public var name: String
    /// The user's e-mail address.
    public var email: String
    /// The server's version of this record (1 for a new record).
    public var revision: Int

    /// Creates a user.
    public init(id: String, name: String, email: String, revision: Int) {
        self.id = id
        self.name = name
        self.email = email
        self.revision = revision
    }

    /// The entity tag the server sends for this version of the user (a quoted string, as
    /// HTTP wants it).
    public var etag: String { "\"\(id)-\(revision)\"" }
}

/// The HTTP paths the server answers and the client calls.
public enum UserAPI {
    /// `GET /users/{id}`: the user as JSON, with `ETag` and `Cache-Control: max-age`;
    /// `304 Not Modified` when `If-None-Match` names the current ETag; 404 for an unknown id.
    /// `PUT /users/{id}` with `{"name": …, "email": …}` creates or changes the user (new ETag).
    public static func userPath(_ id: String) -> String { "/users/\(id)" }

    /// `GET /requests`: how many user requests the server has answered, as plain text.
    public static let requestCountPath = "/requests"
}
