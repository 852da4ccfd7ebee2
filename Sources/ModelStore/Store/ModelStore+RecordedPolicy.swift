public import Foundation

extension ModelStore {
    /// The policy recorded in the database: the one it was last opened with by a store that
    /// records its policy (every ``ModelStore`` does; the `modelstore` tool does not), or nil
    /// if none was recorded (a database written only by releases from before policy records).
    ///
    /// It is there for tools and other programs that do not know how the database is used:
    /// `modelstore` judges expiry by it unless given `--policy`. ModelStore never reads it to
    /// judge expiry: each store applies the policy it was opened with. When two stores in one
    /// process open the database with different policies, it holds the later open's.
    ///
    /// ```swift
    /// let store = try ModelStore(name: "userdb", policy: .low)
    /// try store.recordedPolicy()   // .low
    /// ```
    ///
    /// - Throws: ``ModelStoreError/corrupted(path:message:)`` if the record is damaged or was
    ///   written by a newer release in a format this one does not know (opening the database
    ///   with a policy records it again); ``ModelStoreError/closed(path:)``.
    public func recordedPolicy() throws -> UpdatePolicy? {
        try scope.recordedPolicy()
    }

    /// The policy recorded in the database `name` under `directory`, read without recording
    /// one: what a program that opens someone else's database can default to.
    ///
    /// ```swift
    /// let policy = try ModelStore.recordedPolicy(ofDatabaseNamed: "userdb") ?? .low
    /// let store = try ModelStore(name: "userdb", policy: policy)
    /// ```
    ///
    /// If this process has the database open, the open database is read; otherwise it is
    /// opened (taking its lock for the moment of the read) and closed again, and nothing in it
    /// changes.
    ///
    /// - Parameters:
    ///   - name: The database's name.
    ///   - directory: The root directory that holds it; defaults to ``defaultDirectory``.
    /// - Returns: As ``recordedPolicy()``: nil when none is recorded.
    /// - Throws: ``ModelStoreError/invalidName(name:reason:)``;
    ///   ``ModelStoreError/notAModelStore(path:)`` if there is no ModelStore database by that
    ///   name (nothing is created); ``ModelStoreError/locked(path:message:)`` if another process
    ///   has it open; ``ModelStoreError/corrupted(path:message:)`` as ``recordedPolicy()``, or
    ///   from LevelDB.
    public static func recordedPolicy(
        ofDatabaseNamed name: String, in directory: URL = defaultDirectory
    ) throws -> UpdatePolicy? {
        try DatabaseName.validate(name)
        guard let root = try StoreDirectory.canonicalRoot(directory, create: false) else {
            throw ModelStoreError.notAModelStore(path: directory.appendingPathComponent(name).path)
        }
        let path = root + "/" + name
        // Open here already: read it as it is, without a second open that would log the
        // settings it cannot take.
        if let open = DatabaseRegistry.shared.leaseIfOpen(at: path) {
            defer { DatabaseRegistry.shared.release(open) }
            return try open.recordedPolicy(for: .default)
        }
        guard StoreDirectory.kind(of: path) == .database else { throw ModelStoreError.notAModelStore(path: path) }
        var configuration = Configuration()
        configuration.directory = directory
        configuration.recordsPolicies = false
        configuration.finishesInterruptedDeletions = false
        let store = try ModelStore(name: name, policy: .never, configuration: configuration)
        defer { try? store.close() }
        return try store.recordedPolicy()
    }

    /// `recordedPolicy(ofDatabaseNamed:in:)` without blocking the caller's thread.
    ///
    /// - Throws: As the synchronous `recordedPolicy(ofDatabaseNamed:in:)`.
    public static func recordedPolicy(
        ofDatabaseNamed name: String, in directory: URL = defaultDirectory
    ) async throws -> UpdatePolicy? {
        try await offload { try recordedPolicy(ofDatabaseNamed: name, in: directory) }
    }
}

extension Scope {
    /// The policy recorded for this scope's key space (see ``StoredPolicies``).
    func recordedPolicy() throws -> UpdatePolicy? {
        try open().recordedPolicy(for: space)
    }
}

extension OpenDatabase {
    /// The policy recorded for `space`.
    func recordedPolicy(for space: KeySpace) throws(ModelStoreError) -> UpdatePolicy? {
        let record = try run { try StoredPolicies.read(key: StoredPolicies.key(for: space), from: $0) }
        switch record {
        case .absent:
            return nil
        case .policy(let policy):
            return policy
        case .unreadable(let reason):
            let (what, remedy) =
                space.collection.map {
                    ("the collection \($0.debugDescription)", "Creating the collection with a policy records it again.")
                } ?? ("the database", "Opening the database with a policy records it again.")
            throw .corrupted(path: path, message: "the policy recorded for \(what) is unreadable: \(reason). \(remedy)")
        }
    }
}
