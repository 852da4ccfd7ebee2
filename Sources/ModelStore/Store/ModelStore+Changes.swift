extension ModelStore {
    /// A change to one record, as reported by ``changes(bufferingPolicy:)``.
    ///
    /// Two changes are equal when their kinds and collections are equal and their keys (and
    /// collection names) have the same bytes:
    /// "é" as U+00E9 and as "e" plus U+0301 are equal Swift strings but different records,
    /// so changes to them are different changes.
    public struct Change: Sendable, Hashable {
        /// What happened to the record.
        public enum Kind: Sendable, Hashable {
            /// The record was stored (created or replaced), by a set, batch or import.
            case set
            /// The record was removed by a remove call or a batch.
            case removed
            /// The record was removed because it had expired (by a read or a sweep).
            case expired
            /// The record was removed by a sweep to keep the database within its limits.
            case evicted
        }

        /// The record's key.
        public let key: String
        /// What happened.
        public let kind: Kind
        /// The name of the collection the record is in (see ``ModelStore/collection(_:)``);
        /// nil for the default collection (the store itself).
        public let collection: String?

        /// Creates a change to a record of the default collection, or of `collection`.
        public init(key: String, kind: Kind, collection: String? = nil) {
            self.key = key
            self.kind = kind
            self.collection = collection
        }

        /// Whether two changes have the same kind, and keys and collection names with the
        /// same bytes.
        public static func == (lhs: Change, rhs: Change) -> Bool {
            lhs.kind == rhs.kind && ByteKey(lhs.key) == ByteKey(rhs.key)
                && lhs.collection.map { ByteKey($0) } == rhs.collection.map { ByteKey($0) }
        }

        /// Hashes the kind, the key's bytes and the collection name's bytes.
        public func hash(into hasher: inout Hasher) {
            hasher.combine(kind)
            hasher.combine(ByteKey(key))
            hasher.combine(collection.map { ByteKey($0) })
        }
    }

    /// An asynchronous sequence of the changes made to this database through any store in
    /// this process, from now until the database is closed or deleted.
    ///
    /// ```swift
    /// let changes = store.changes()       // subscribe first: the stream sees every later write
    /// let observer = Task {
    ///     for await change in changes {
    ///         print(change.key, change.kind)   // user:1 set
    ///     }
    /// }
    /// try store.set(user, forKey: "user:1")
    /// ```
    ///
    /// The stream starts when this method returns, not when iteration begins: call it before
    /// the writes you want to see, then iterate it in a task. Calling it inside the task
    /// (`Task { for await c in store.changes() { … } }`) misses every write made before the
    /// task gets to run, usually the first ones.
    ///
    /// Changes are delivered after they are written, in the order each writer made them.
    /// Changes made by other processes are not seen.
    ///
    /// - Parameter bufferingPolicy: What to do when the consumer falls behind. The default
    ///   keeps the newest 10,000 changes, so a slow consumer of a large import cannot make
    ///   memory grow without bound; pass `.unbounded` to keep every change.
    public func changes(
        bufferingPolicy: AsyncStream<Change>.Continuation.BufferingPolicy = .bufferingNewest(10_000)
    ) -> AsyncStream<Change> {
        guard let database = try? scope.open() else {
            return AsyncStream { $0.finish() }
        }
        return database.changes.subscribe(bufferingPolicy: bufferingPolicy)
    }
}
