extension ModelStore {
    /// A consistent, read-only view of a database at one moment.
    ///
    /// ```swift
    /// let snapshot = try store.snapshot()
    /// try store.set(newer, forKey: "u1")                        // not visible to the snapshot
    /// let u = try snapshot.object(User.self, forKey: "u1")     // the value at snapshot time
    /// let old = try snapshot.collection("users").object(User.self, forKey: "42")
    /// ```
    ///
    /// A snapshot offers the store's reads, which behave as the store's do (see each one there)
    /// on the database as it was when the snapshot was taken: later writes, removals and sweeps
    /// are invisible to it. Records that have expired by the store's clock read as missing, but
    /// a snapshot never deletes anything and never uses the object cache. It keeps its database
    /// open (even if the store is closed) until it is closed or released; after the database is
    /// deleted its reads throw ``ModelStoreError/closed(path:)``.
    ///
    /// A snapshot is `Sendable` and may be read from many threads. Release it (or call
    /// ``close()``) when done: LevelDB keeps the data it can see until then.
    public final class Snapshot: Sendable {
        /// The snapshot's key space and view: every read forwards to it.
        @usableFromInline
        let scope: Scope

        init(scope: Scope) {
            self.scope = scope
        }

        /// A read-only view of one collection, as it was when the snapshot was taken.
        @available(*, deprecated, renamed: "ModelStore.Snapshot", message: "snapshot.collection(_:) returns a Snapshot")
        public typealias Collection = Snapshot

        /// This snapshot narrowed to the collection `name`: its records as they were when the
        /// snapshot was taken.
        ///
        /// ```swift
        /// let snapshot = try store.snapshot()
        /// let old = try snapshot.collection("users").object(User.self, forKey: "42")
        /// ```
        ///
        /// Creating it does no I/O and does not throw: an invalid name is reported by each read,
        /// as ``ModelStoreError/invalidName(name:reason:)``. It shares this snapshot's view:
        /// closing either one closes both.
        public func collection(_ name: String) -> Snapshot {
            Snapshot(scope: scope.collection(name, policy: nil))
        }

        /// Releases LevelDB's snapshot and the hold on the database, for this snapshot and every
        /// one narrowed from it (or it from). Later reads throw ``ModelStoreError/closed(path:)``.
        /// Closing twice does nothing.
        public func close() {
            scope.view?.close()
        }

        /// The model stored for `key` when the snapshot was taken, or nil if there was none or it
        /// has expired since. See ``ModelStore/object(_:forKey:)``.
        public func object<Value: Decodable>(_ type: Value.Type = Value.self, forKey key: String) throws -> Value? {
            try scope.object(type, forKey: key)
        }

        /// The record stored for `key` when the snapshot was taken, with its metadata and tags.
        /// See ``ModelStore/entry(_:forKey:includingExpired:)``.
        public func entry<Value: Decodable>(
            _ type: Value.Type, forKey key: String, includingExpired: Bool = false
        ) throws -> Entry<Value>? {
            try scope.entry(type, forKey: key, includingExpired: includingExpired)
        }

        /// The metadata stored beside the model for `key` when the snapshot was taken. See
        /// ``ModelStore/metadata(_:forKey:)``.
        @inlinable
        public func metadata<Metadata: Decodable>(_ type: Metadata.Type, forKey key: String) throws -> Metadata? {
            try scope.metadata(type, forKey: key)
        }

        /// Whether an unexpired record was stored for `key` when the snapshot was taken.
        public func contains(_ key: String) throws -> Bool {
            try scope.contains(key)
        }

        /// A cursor over the snapshot's live keys. See ``ModelStore/keys(in:reverse:limit:)``.
        public func keys(in range: KeyRange = .all, reverse: Bool = false, limit: Int? = nil) throws -> Cursor<String> {
            try scope.keys(in: range, reverse: reverse, limit: limit)
        }

        /// A cursor over the snapshot's live records. See ``ModelStore/entries(_:in:reverse:limit:)``.
        public func entries<Value: Decodable>(
            _ type: Value.Type, in range: KeyRange = .all, reverse: Bool = false, limit: Int? = nil
        ) throws -> Cursor<Entry<Value>> {
            try scope.entries(type, in: range, reverse: reverse, limit: limit)
        }

        /// The number of live records in `range` in the snapshot.
        public func count(in range: KeyRange = .all) throws -> Int {
            try scope.count(in: range)
        }

        /// Reads many keys from the snapshot. See ``ModelStore/objects(_:forKeys:)``.
        public func objects<Value: Decodable, Keys: Sequence<String>>(
            _ type: Value.Type, forKeys keys: Keys
        ) throws -> [String: Value] {
            try scope.objects(type, forKeys: keys)
        }

        /// Reads many keys from the snapshot, in order, with their metadata. See
        /// ``ModelStore/entries(_:forKeys:)``.
        public func entries<Value: Decodable, Keys: Sequence<String>>(
            _ type: Value.Type, forKeys keys: Keys
        ) throws -> [Entry<Value>] {
            try scope.entries(type, forKeys: keys)
        }
    }

    /// Takes a consistent, read-only view of the database as it is now.
    ///
    /// ```swift
    /// let snapshot = try store.snapshot()
    /// let u = try snapshot.object(User.self, forKey: "u1")
    /// ```
    ///
    /// - Throws: ``ModelStoreError/closed(path:)``.
    public func snapshot() throws -> Snapshot {
        Snapshot(scope: scope.reading(through: try SnapshotView(database: scope.open())))
    }
}
