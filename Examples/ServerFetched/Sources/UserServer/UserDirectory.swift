public import Hummingbird
public import UserAPI

/// The server's user records, kept behind Hummingbird's `PersistDriver` API.
///
/// The server is handed a `ModelStorePersistDriver`, so its users live in a ModelStore
/// database and survive restarts; any other driver (`MemoryPersistDriver`, Redis) would do
/// as well, since this type only calls the protocol.
public struct UserDirectory: Sendable {
    private let persist: any PersistDriver

    /// The users a new directory starts with, so the example needs no data files.
    public static let seed: [User] = [
        User(id: "ada", name: "Ada Lovelace", email: "ada@example.com", revision: 1),
        User(id: "grace", name: "Grace Hopper", email: "grace@example.com", revision: 1),
        User(id: "linus", name: "Linus Torvalds", email: "linus@example.com", revision: 1),
    ]

    /// Creates a directory over `persist`.
    public init(persist: any PersistDriver) {
        self.persist = persist
    }

    /// The persist key of user `id`.
    static func key(_ id: String) -> String { "user:\(id)" }

    /// Stores the ``seed`` users that are not stored yet (a restarted server keeps its edits).
    public func seedIfEmpty() async throws {
        for user in Self.seed {
            do {
                try await persist.create(key: Self.key(user.id), value: user, expires: nil)
            } catch let error as PersistError where error == .duplicate {
                continue  // Already there, perhaps changed since: keep it.
            }
        }
    }

    /// The user `id`, or nil if there is none.
    public func user(_ id: String) async throws -> User? {
        try await persist.get(key: Self.key(id), as: User.self)
    }

    /// Creates user `id` or changes its name and e-mail, bumping its revision (and so its ETag).
    ///
    /// - Returns: The stored user.
    @discardableResult
    public func update(_ id: String, name: String, email: String) async throws -> User {
        let revision = (try await user(id)?.revision ?? 0) + 1
        let user = User(id: id, name: name, email: email, revision: revision)
        try await persist.set(key: Self.key(id), value: user, expires: nil)
        return user
    }
}
