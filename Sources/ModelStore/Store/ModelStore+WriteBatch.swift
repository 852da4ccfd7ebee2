public import Foundation

extension ModelStore {
    /// Collects sets and removals that ``ModelStore/write(sync:_:)`` applies atomically.
    ///
    /// A batch is only valid inside the closure it is passed to, and is not thread-safe.
    public final class WriteBatch {
        let store: ModelStore
        let batch = LevelDBWriteBatch()
        private(set) var keys: [String] = []
        private(set) var kinds: [Change.Kind] = []
        /// The key space of each key, filled only once a key of a named collection is added
        /// (until then every key is in the default collection and this stays empty).
        private(set) var spaces: [KeySpace] = []
        /// An invalid key passed to the non-throwing ``removeObject(forKey:)``; reported when
        /// the batch is applied, so nothing is written.
        private var deferredError: ModelStoreError?
        /// One encoding buffer for every record of the batch (see `addRecord(_:forKey:lifetime:metadata:to:buffer:)`).
        private var recordBuffer: [UInt8] = []

        init(store: ModelStore) {
            self.store = store
        }

        /// The number of operations in the batch (tag-index entries are not counted).
        public var count: Int { keys.count }

        /// Adds storing `value` under `key`, expiring by the store's policy.
        ///
        /// - Throws: ``ModelStoreError/encodingFailed(key:type:message:)``,
        ///   ``ModelStoreError/invalidKey(key:reason:)`` or
        ///   ``ModelStoreError/valueTooLarge(key:byteCount:)``. If the error escapes the
        ///   ``ModelStore/write(sync:_:)`` closure, nothing in the batch is written.
        public func set<Value: Encodable>(_ value: Value, forKey key: String) throws {
            try add(value, forKey: key, lifetime: nil)
        }

        /// Adds storing `value` under `key` with a lifetime of its own, in seconds.
        ///
        /// - Throws: ``ModelStoreError/invalidPolicy(reason:)`` for a lifetime that is not
        ///   positive and finite; otherwise as ``set(_:forKey:)``.
        public func set<Value: Encodable>(_ value: Value, forKey key: String, expiresAfter lifetime: TimeInterval) throws {
            try UpdatePolicy.validate(lifetime: lifetime, what: "record lifetime")
            try add(value, forKey: key, lifetime: lifetime)
        }

        /// Adds removing the record for `key`.
        ///
        /// An invalid key makes ``ModelStore/write(sync:_:)`` throw
        /// ``ModelStoreError/invalidKey(key:reason:)`` without writing anything.
        public func removeObject(forKey key: String) {
            remove(key, space: .default)
        }

        /// Adds storing `value` under `key` in the collection `collection` (see
        /// ``ModelStore/collection(_:)``), expiring by the store's policy: a batch knows the
        /// collection only by name, not the policy a ``ModelStore/Collection`` was opened
        /// with, so give a lifetime with ``set(_:forKey:in:expiresAfter:)`` if it needs one.
        ///
        /// ```swift
        /// try store.write { batch in
        ///     try batch.set(user, forKey: "42", in: "users")
        ///     batch.removeObject(forKey: "7", in: "sessions")
        /// }
        /// ```
        ///
        /// - Throws: ``ModelStoreError/invalidName(name:reason:)`` for an invalid collection
        ///   name; otherwise as ``set(_:forKey:)``.
        public func set<Value: Encodable>(_ value: Value, forKey key: String, in collection: String) throws {
            try add(value, forKey: key, lifetime: nil, space: KeySpace(collection: collection))
        }

        /// Adds storing `value` under `key` in the collection `collection` with a lifetime of
        /// its own.
        ///
        /// - Throws: ``ModelStoreError/invalidPolicy(reason:)`` for a bad lifetime; otherwise
        ///   as ``set(_:forKey:in:)-(_,_,String)``.
        public func set<Value: Encodable>(
            _ value: Value, forKey key: String, in collection: String, expiresAfter lifetime: TimeInterval
        ) throws {
            try UpdatePolicy.validate(lifetime: lifetime, what: "record lifetime")
            try add(value, forKey: key, lifetime: lifetime, space: KeySpace(collection: collection))
        }

        /// Adds storing `value` under `key` in `collection`, with the collection's policy
        /// (stamped on the record as its own deadline, as ``Collection/set(_:forKey:)`` does).
        ///
        /// ```swift
        /// let sessions = store.collection("sessions", policy: .highest)
        /// try store.write { batch in try batch.set(session, forKey: "s1", in: sessions) }
        /// ```
        ///
        /// - Throws: As ``set(_:forKey:in:)-(_,_,String)``; ``ModelStoreError/invalidPolicy(reason:)`` for
        ///   a collection opened with an invalid policy.
        public func set<Value: Encodable>(_ value: Value, forKey key: String, in collection: Collection) throws {
            let target = try collection.checked
            try add(value, forKey: key, lifetime: target.lifetime, space: target.space)
        }

        /// Adds removing the record for `key` in the collection `collection`. An invalid key
        /// or collection name is reported when the batch is written, and nothing is written.
        public func removeObject(forKey key: String, in collection: String) {
            do {
                remove(key, space: try KeySpace(collection: collection))
            } catch {
                deferredError = deferredError ?? error
            }
        }

        private func remove(_ key: String, space: KeySpace) {
            do {
                try space.withPhysicalKey(key) { batch.delete(key: $0) }
                note(key, .removed, space)
            } catch {
                deferredError = deferredError ?? (error as? ModelStoreError)
            }
        }

        func add<Value: Encodable>(
            _ value: Value, forKey key: String, lifetime: TimeInterval?, metadata: (any Codable & Sendable)? = nil,
            space: KeySpace = .default
        ) throws {
            // Opened once, here: below, the metadata is of its own type.
            if let metadata {
                try add(value, forKey: key, lifetime: lifetime, with: metadata, space: space)
            } else {
                try add(value, forKey: key, lifetime: lifetime, with: NoMetadata(), space: space)
            }
        }

        /// ``add(_:forKey:lifetime:metadata:space:)`` with metadata of its own type (``NoMetadata``: none).
        func add<Value: Encodable, Metadata: Encodable>(
            _ value: Value, forKey key: String, lifetime: TimeInterval?, with metadata: Metadata, space: KeySpace
        ) throws {
            try store.addRecord(
                value, forKey: key, lifetime: lifetime, with: metadata, to: batch, buffer: &recordBuffer,
                space: space)
            note(key, .set, space)
        }

        private func note(_ key: String, _ kind: Change.Kind, _ space: KeySpace) {
            if !space.isDefault && spaces.isEmpty {
                // The first key of a named collection: the earlier ones were all default.
                spaces = Array(repeating: .default, count: keys.count)
                spaces.reserveCapacity(keys.count + 1)
                spaces.append(space)
            } else if !spaces.isEmpty {
                spaces.append(space)
            }
            keys.append(key)
            kinds.append(kind)
        }

        /// Adds a record with tags and its tag-index entries.
        func addTagged<Value: Encodable>(
            _ value: Value, forKey key: String, lifetime: TimeInterval?, metadata: (any Codable & Sendable)?,
            tags: [String], space: KeySpace = .default
        ) throws {
            try store.addTaggedRecord(
                value, forKey: key, lifetime: lifetime, metadata: metadata, tags: tags, space: space, to: batch,
                buffer: &recordBuffer)
            note(key, .set, space)
        }

        /// Throws the first deferred error, or if the batch outgrew LevelDB's limits.
        func validate() throws(ModelStoreError) {
            if let deferredError { throw deferredError }
            if batch.byteCount > store.configuration.recordLengthLimit {
                throw .valueTooLarge(key: keys.first ?? "", byteCount: batch.byteCount)
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
    /// rethrown. The batch is applied with one `leveldb_write`.
    ///
    /// - Parameters:
    ///   - sync: Whether to wait for the batch to reach stable storage; nil uses
    ///     ``Configuration/syncWrites``.
    ///   - body: Adds operations to the batch. Its result is returned.
    /// - Throws: Whatever `body` throws, or a write error as ``set(_:forKey:)``.
    @discardableResult
    public func write<Result>(sync: Bool? = nil, _ body: (WriteBatch) throws -> Result) throws -> Result {
        let database = try openDatabase()
        let batch = WriteBatch(store: self)
        let result = try body(batch)
        try batch.validate()
        guard batch.count > 0 else { return result }
        try apply(
            batch.batch, keys: batch.keys, kinds: batch.kinds, spaces: batch.spaces.isEmpty ? nil : batch.spaces,
            in: database, sync: sync ?? configuration.syncWrites)
        return result
    }

    /// Writes a LevelDB batch, invalidates the cached models it touched and reports the
    /// changes. `kinds` parallels `keys`; nil means every operation was a set.
    ///
    /// With an observer and removals in the batch, the batch is written under the exclusive
    /// write gate after reading what each removal removes: a live record is `.removed`, an
    /// expired one `.expired`, and a key with no record reports nothing. Without an observer
    /// nothing is read.
    func apply(
        _ batch: LevelDBWriteBatch, keys: [String], kinds: [Change.Kind]?, spaces: [KeySpace]? = nil,
        in database: OpenDatabase, sync: Bool
    ) throws {
        defer { database.invalidate(keys, spaces: spaces) }
        guard database.changes.isObserved else {
            try database.write { engine in try engine.write(batch, sync: sync) }
            return
        }
        guard let kinds, kinds.contains(.removed) else {
            try database.write { engine in try engine.write(batch, sync: sync) }
            if let spaces {
                database.changes.publish(
                    zip(keys, spaces).map { Change(key: $0, kind: .set, collection: $1.collection) })
            } else {
                database.changes.publish(keys, .set)
            }
            return
        }
        let changes = try database.exclusiveWrite { engine -> [Change] in
            let changes = try describe(keys: keys, kinds: kinds, spaces: spaces, engine: engine)
            try engine.write(batch, sync: sync)
            return changes
        }
        database.changes.publish(changes)
    }

    /// The changes a batch makes, reading the state of each removed key that the batch did
    /// not touch before; keys are told apart by their bytes.
    private func describe(
        keys: [String], kinds: [Change.Kind], spaces: [KeySpace]?, engine: LevelDB
    ) throws -> [Change] {
        let now = reader.now()
        let timeToLive = reader.timeToLive
        var earlier: [ByteKey: RecordState] = [:]  // state after the batch's earlier operations
        var changes: [Change] = []
        changes.reserveCapacity(keys.count)
        for (index, (key, kind)) in zip(keys, kinds).enumerated() {
            let space = spaces?[index] ?? .default
            let byteKey = ByteKey(key, in: space)
            guard kind == .removed else {
                earlier[byteKey] = .live
                changes.append(Change(key: key, kind: kind, collection: space.collection))
                continue
            }
            let state = try earlier[byteKey] ?? space.withPhysicalKey(key) { keyBytes in
                try engine.withValue(forKey: keyBytes) {
                    RecordState($0, key: keyBytes, now: now, timeToLive: timeToLive)
                }
            }
            earlier[byteKey] = .missing
            switch state {
            case .live: changes.append(Change(key: key, kind: .removed, collection: space.collection))
            case .expired: changes.append(Change(key: key, kind: .expired, collection: space.collection))
            case .missing: break
            }
        }
        return changes
    }
}
