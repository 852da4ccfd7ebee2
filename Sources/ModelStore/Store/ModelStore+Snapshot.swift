extension ModelStore {
    /// A consistent, read-only view of a database at one moment.
    ///
    /// ```swift
    /// let snapshot = try store.snapshot()
    /// try store.set(newer, forKey: "u1")                        // not visible to the snapshot
    /// let u = try snapshot.object(User.self, forKey: "u1")     // the value at snapshot time
    /// ```
    ///
    /// Later writes, removals and sweeps are invisible to it. Records that have expired by
    /// the store's clock read as missing, but a snapshot never deletes anything. It keeps its
    /// database open (even if the store is closed) until it is closed or released; after the
    /// database is deleted its reads throw ``ModelStoreError/closed(path:)``.
    ///
    /// A snapshot is `Sendable` and may be read from many threads. Release it (or call
    /// ``close()``) when done: LevelDB keeps the data it can see until then.
    public final class Snapshot: Sendable {
        private let database: OpenDatabase
        private let reader: RecordReader
        private let state: Locked<LevelDBSnapshot?>

        init(database: OpenDatabase, reader: RecordReader) throws {
            try DatabaseRegistry.shared.retain(database)
            do {
                let snapshot = try database.run { engine in try engine.makeSnapshot() }
                state = Locked(snapshot)
            } catch {
                DatabaseRegistry.shared.release(database)
                throw error
            }
            self.database = database
            self.reader = reader
        }

        deinit {
            close()
        }

        /// Releases LevelDB's snapshot and this snapshot's hold on the database. Later reads
        /// throw ``ModelStoreError/closed(path:)``. Closing twice does nothing.
        public func close() {
            let wasOpen = state.withLock { snapshot -> Bool in
                defer { snapshot = nil }
                return snapshot != nil
            }
            if wasOpen { DatabaseRegistry.shared.release(database) }
        }

        func queries(in space: KeySpace = .default) throws(ModelStoreError) -> RecordQueries {
            guard let snapshot = state.withLock({ $0 }) else { throw .closed(path: database.path) }
            return RecordQueries(database: database, snapshot: snapshot, reader: reader, space: space)
        }

        /// The model stored for `key` when the snapshot was taken, or nil if there was none
        /// or it has expired since.
        ///
        /// - Throws: As ``ModelStore/object(forKey:)``.
        public func object<Value: Decodable>(forKey key: String) throws -> Value? {
            try entry(Value.self, forKey: key)?.value
        }

        /// The model of type `type` stored for `key` when the snapshot was taken.
        ///
        /// - Throws: As ``ModelStore/object(forKey:)``.
        public func object<Value: Decodable>(_ type: Value.Type, forKey key: String) throws -> Value? {
            try entry(type, forKey: key)?.value
        }

        /// The model stored for `key` when the snapshot was taken, with its metadata.
        ///
        /// - Throws: As ``ModelStore/object(forKey:)``.
        public func entry<Value: Decodable>(_ type: Value.Type, forKey key: String) throws -> Entry<Value>? {
            try queries().entry(type, forKey: key)
        }

        /// Whether an unexpired record was stored for `key` when the snapshot was taken.
        public func contains(_ key: String) throws -> Bool {
            try queries().contains(key)
        }

        /// A cursor over the snapshot's live keys. See ``ModelStore/keys(in:reverse:limit:)``.
        public func keys(in range: KeyRange = .all, reverse: Bool = false, limit: Int? = nil) throws -> Cursor<String> {
            try queries().keys(in: range, reverse: reverse, limit: limit)
        }

        /// A cursor over the snapshot's live records. See
        /// ``ModelStore/entries(_:in:reverse:limit:)``.
        public func entries<Value: Decodable>(
            _ type: Value.Type, in range: KeyRange = .all, reverse: Bool = false, limit: Int? = nil
        ) throws -> Cursor<Entry<Value>> {
            try queries().entries(type, in: range, reverse: reverse, limit: limit)
        }

        /// The number of live records in `range` in the snapshot.
        public func count(in range: KeyRange = .all) throws -> Int {
            try queries().count(in: range)
        }

        /// Reads many keys from the snapshot. See ``ModelStore/objects(_:forKeys:)``.
        public func objects<Value: Decodable, Keys: Sequence<String>>(
            _ type: Value.Type, forKeys keys: Keys
        ) throws -> [String: Value] {
            try queries().objects(type, forKeys: keys)
        }

        /// Reads many keys from the snapshot, in order, with their metadata. See
        /// ``ModelStore/entries(_:forKeys:)``.
        public func entries<Value: Decodable, Keys: Sequence<String>>(
            _ type: Value.Type, forKeys keys: Keys
        ) throws -> [Entry<Value>] {
            try queries().entries(type, forKeys: keys)
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
        try Snapshot(database: openDatabase(), reader: reader)
    }
}
