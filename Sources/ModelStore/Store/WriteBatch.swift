public import Foundation

extension ModelStore {
    /// Collects sets and removals that ``ModelStore/write(sync:_:)`` applies atomically, in the
    /// store's own keys or any collection's.
    ///
    /// ```swift
    /// let sessions = store.collection("sessions", policy: .highest)
    /// try store.write { batch in
    ///     try batch.set(user, forKey: "u1")
    ///     try batch.set(session, forKey: "s1", in: sessions)          // the collection's policy
    ///     try batch.set(user, forKey: "42", in: "users", tags: ["team:7"])
    ///     batch.removeObject(forKey: "7", in: "sessions")
    /// }
    /// ```
    ///
    /// A batch is only valid inside the closure it is passed to, and is not thread-safe.
    public final class WriteBatch {
        @usableFromInline
        let store: ModelStore
        let batch = LevelDBWriteBatch()
        private(set) var changes = ChangeList()
        /// The first invalid key or name passed to a non-throwing removal; reported when the
        /// batch is applied, so nothing is written.
        private var deferredError: ModelStoreError?
        /// One encoding buffer for every record of the batch (see ``Scope/add(_:forKey:in:lifetime:with:tags:to:buffer:)``).
        private var recordBuffer: [UInt8] = []

        init(store: ModelStore) {
            self.store = store
        }

        /// The number of operations in the batch (tag-index entries are not counted).
        public var count: Int { changes.count }

        /// Adds storing `value` under `key`: in the store's own keys, or in `collection` with the
        /// collection's policy (stamped on the record as its own deadline, as
        /// ``ModelStore/Collection/set(_:forKey:expiresAfter:metadata:tags:)-7jobk`` does). The options are those of
        /// ``ModelStore/set(_:forKey:expiresAfter:metadata:tags:)-2n6sg``; tags are written with their
        /// index entries, with the rest of the batch.
        ///
        /// - Throws: As ``ModelStore/set(_:forKey:expiresAfter:metadata:tags:)-2n6sg``, and
        ///   ``ModelStoreError/invalidName(name:reason:)`` or ``ModelStoreError/invalidPolicy(reason:)``
        ///   for an invalid collection. If the error escapes the ``ModelStore/write(sync:_:)``
        ///   closure, nothing in the batch is written.
        public func set<Value: Encodable>(
            _ value: Value, forKey key: String, in collection: Collection? = nil,
            expiresAfter lifetime: TimeInterval? = nil, metadata: (any Codable & Sendable)? = nil, tags: [String] = []
        ) throws {
            try add(value, forKey: key, to: collection?.scope ?? store.scope, lifetime: lifetime, metadata: metadata, tags: tags)
        }

        /// Adds storing `value` under `key` in the collection named `collection`, expiring by the
        /// store's policy unless given a lifetime: a name carries no policy (give the
        /// ``Collection`` itself for that).
        ///
        /// - Throws: ``ModelStoreError/invalidName(name:reason:)`` for an invalid collection name;
        ///   otherwise as ``ModelStore/WriteBatch/set(_:forKey:in:expiresAfter:metadata:tags:)-5xdgl``.
        public func set<Value: Encodable>(
            _ value: Value, forKey key: String, in collection: String, expiresAfter lifetime: TimeInterval? = nil,
            metadata: (any Codable & Sendable)? = nil, tags: [String] = []
        ) throws {
            try add(value, forKey: key, to: scope(named: collection), lifetime: lifetime, metadata: metadata, tags: tags)
        }

        /// Adds removing the record for `key`, in the store's own keys or in `collection`. An
        /// invalid key or collection is reported when the batch is written, and nothing is written.
        public func removeObject(forKey key: String, in collection: Collection? = nil) {
            remove(key, from: collection?.scope ?? store.scope)
        }

        /// Adds removing the record for `key` in the collection named `collection`. An invalid
        /// key or name is reported when the batch is written, and nothing is written.
        public func removeObject(forKey key: String, in collection: String) {
            remove(key, from: scope(named: collection))
        }

        /// The scope of the collection `name`, with the store's policy.
        @usableFromInline
        func scope(named name: String) -> Scope {
            store.scope.collection(name, policy: nil)
        }

        private func remove(_ key: String, from scope: Scope) {
            do {
                let space = try scope.checkedSpace
                try space.withPhysicalKey(key) { batch.delete(key: $0) }
                changes.append(KeyChange(key, in: space, .removed, dependsOnStoredRecord: true))
            } catch {
                deferredError = deferredError ?? (error as? ModelStoreError)
            }
        }

        func add<Value: Encodable>(
            _ value: Value, forKey key: String, to scope: Scope, lifetime: TimeInterval?,
            metadata: (any Codable & Sendable)?, tags: [String]
        ) throws {
            // Opened once, here: below, the metadata is of its own type.
            if let metadata {
                try add(value, forKey: key, to: scope, lifetime: lifetime, with: metadata, tags: tags)
            } else {
                try add(value, forKey: key, to: scope, lifetime: lifetime, with: NoMetadata(), tags: tags)
            }
        }

        /// Unwraps typed metadata in the caller's module (see TypedMetadataSetters.swift).
        @inlinable
        func add<Value: Encodable, Metadata: Codable & Sendable>(
            _ value: Value, forKey key: String, to scope: Scope, lifetime: TimeInterval?, typed metadata: Metadata?,
            tags: [String]
        ) throws {
            guard let metadata else {
                return try add(value, forKey: key, to: scope, lifetime: lifetime, with: NoMetadata(), tags: tags)
            }
            try add(value, forKey: key, to: scope, lifetime: lifetime, with: metadata, tags: tags)
        }

        /// Adds a record of its own metadata type (``NoMetadata``: none) in `scope`'s key space.
        @usableFromInline
        func add<Value: Encodable, Metadata: Encodable>(
            _ value: Value, forKey key: String, to scope: Scope, lifetime own: TimeInterval?, with metadata: Metadata,
            tags: [String]
        ) throws {
            let space = try scope.checkedSpace
            let lifetime = try scope.recordLifetime(own)
            let tags = tags.isEmpty ? tags : try TagIndex.validated(tags)
            // Encoded by the batch's store (its codec and clock), in the scope's key space.
            changes.append(
                try store.scope.add(
                    value, forKey: key, in: space, lifetime: lifetime, with: metadata, tags: tags, to: batch,
                    buffer: &recordBuffer))
        }

        /// Throws the first deferred error, or if the batch outgrew LevelDB's limits.
        func validate() throws(ModelStoreError) {
            if let deferredError { throw deferredError }
            if batch.byteCount > store.configuration.recordLengthLimit {
                var first = ""
                changes.forEach { if first.isEmpty { first = $0.key } }
                throw .valueTooLarge(key: first, byteCount: batch.byteCount)
            }
        }
    }

    /// Applies every set and removal made in `body` atomically: all of them or none.
    ///
    /// ```swift
    /// try store.write { batch in
    ///     try batch.set(user, forKey: "u1")
    ///     try batch.set(session, forKey: "s1", expiresAfter: 30)
    ///     batch.removeObject(forKey: "u2")
    /// }
    /// ```
    ///
    /// If `body` throws (an encoding failure included), nothing is written and the error is
    /// rethrown. The batch is applied with one `leveldb_write`, through the write funnel.
    /// ``changes(bufferingPolicy:)`` reports each operation in order: `.set`, or for a removal
    /// `.removed` (a live record), `.expired` (an expired one) or nothing (no record).
    ///
    /// - Parameters:
    ///   - sync: Whether to wait for the batch to reach stable storage; nil uses
    ///     ``Configuration/syncWrites``.
    ///   - body: Adds operations to the batch. Its result is returned.
    /// - Throws: Whatever `body` throws, or a write error as ``ModelWriter/set(_:forKey:expiresAfter:metadata:tags:)-7tnvs``.
    @discardableResult
    public func write<Result>(sync: Bool? = nil, _ body: (WriteBatch) throws -> Result) throws -> Result {
        let database = try scope.open()
        let batch = WriteBatch(store: self)
        let result = try body(batch)
        try batch.validate()
        guard batch.count > 0 else { return result }
        try database.commit(
            .batch(batch.batch), batch.changes, sync: sync ?? configuration.syncWrites, judgedBy: scope.reader)
        return result
    }
}
