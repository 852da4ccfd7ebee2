extension ModelStore.Snapshot {
    /// A read-only view of one collection in a snapshot: the collection's records as they were
    /// when the snapshot was taken.
    ///
    /// ```swift
    /// let snapshot = try store.snapshot()
    /// let old = try snapshot.collection("users").object(User.self, forKey: "42")
    /// ```
    ///
    /// The view reads through its snapshot: closing the snapshot closes the view too (its
    /// reads then throw ``ModelStoreError/closed(path:)``).
    public struct Collection: Sendable {
        let snapshot: ModelStore.Snapshot
        let space: Result<KeySpace, ModelStoreError>

        /// The collection's name.
        public let name: String

        private func queries() throws(ModelStoreError) -> RecordQueries {
            try snapshot.queries(in: space.get())
        }

        /// The model stored for `key` when the snapshot was taken.
        ///
        /// - Throws: As ``ModelStore/Collection/object(forKey:)``.
        public func object<Value: Decodable>(forKey key: String) throws -> Value? {
            try entry(Value.self, forKey: key)?.value
        }

        /// The model of type `type` stored for `key` when the snapshot was taken.
        ///
        /// - Throws: As ``ModelStore/Collection/object(forKey:)``.
        public func object<Value: Decodable>(_ type: Value.Type, forKey key: String) throws -> Value? {
            try entry(type, forKey: key)?.value
        }

        /// The model stored for `key` when the snapshot was taken, with its metadata.
        public func entry<Value: Decodable>(
            _ type: Value.Type, forKey key: String
        ) throws -> ModelStore.Entry<Value>? {
            try queries().entry(type, forKey: key)
        }

        /// Whether an unexpired record was stored for `key` when the snapshot was taken.
        public func contains(_ key: String) throws -> Bool {
            try queries().contains(key)
        }

        /// A cursor over the collection's live keys in the snapshot.
        public func keys(in range: KeyRange = .all, reverse: Bool = false, limit: Int? = nil) throws -> Cursor<String> {
            try queries().keys(in: range, reverse: reverse, limit: limit)
        }

        /// A cursor over the collection's live records in the snapshot.
        public func entries<Value: Decodable>(
            _ type: Value.Type, in range: KeyRange = .all, reverse: Bool = false, limit: Int? = nil
        ) throws -> Cursor<ModelStore.Entry<Value>> {
            try queries().entries(type, in: range, reverse: reverse, limit: limit)
        }

        /// The number of the collection's live records in `range` in the snapshot.
        public func count(in range: KeyRange = .all) throws -> Int {
            try queries().count(in: range)
        }

        /// Reads many keys of the collection from the snapshot.
        public func objects<Value: Decodable, Keys: Sequence<String>>(
            _ type: Value.Type, forKeys keys: Keys
        ) throws -> [String: Value] {
            try queries().objects(type, forKeys: keys)
        }

        /// Reads many keys of the collection from the snapshot, in order, with their metadata.
        public func entries<Value: Decodable, Keys: Sequence<String>>(
            _ type: Value.Type, forKeys keys: Keys
        ) throws -> [ModelStore.Entry<Value>] {
            try queries().entries(type, forKeys: keys)
        }
    }

    /// A read-only view of the collection `name` as it was when the snapshot was taken.
    ///
    /// Creating the view does no I/O and does not throw: an invalid name is reported by each
    /// read, as ``ModelStoreError/invalidName(name:reason:)``.
    public func collection(_ name: String) -> Collection {
        Collection(snapshot: self, space: Result { () throws(ModelStoreError) in try KeySpace(collection: name) }, name: name)
    }
}
