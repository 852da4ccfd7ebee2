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

/// Fans changes out to every ``ModelStore/changes(bufferingPolicy:)`` stream of a database.
///
/// Writers check ``isObserved`` first, so with no observer a write pays one atomic load and
/// builds no change values.
final class ChangeBroadcaster: Sendable {
    private let subscribers = Locked<[Int: AsyncStream<ModelStore.Change>.Continuation]>([:])
    /// `subscribers.count`, set under its lock, so that writers read it without the lock (one
    /// every write takes would make concurrent writers queue on it).
    private let subscriberCount = AtomicWord()
    private let nextID = Locked(0)
    private let finished = Locked(false)

    var isObserved: Bool {
        subscriberCount.load() != 0
    }

    func subscribe(
        bufferingPolicy: AsyncStream<ModelStore.Change>.Continuation.BufferingPolicy
    ) -> AsyncStream<ModelStore.Change> {
        let (stream, continuation) = AsyncStream.makeStream(of: ModelStore.Change.self, bufferingPolicy: bufferingPolicy)
        if finished.withLock({ $0 }) {
            continuation.finish()
            return stream
        }
        let id = nextID.withLock { id -> Int in
            id += 1
            return id
        }
        continuation.onTermination = { [weak self] _ in
            guard let self else { return }
            subscribers.withLock { subscribers in
                subscribers[id] = nil
                subscriberCount.store(UInt64(subscribers.count))
            }
        }
        subscribers.withLock { subscribers in
            subscribers[id] = continuation
            subscriberCount.store(UInt64(subscribers.count))
        }
        return stream
    }

    func publish(_ key: String, _ kind: ModelStore.Change.Kind, in space: KeySpace = .default) {
        for continuation in subscribers.withLock({ Array($0.values) }) {
            continuation.yield(ModelStore.Change(key: key, kind: kind, collection: space.collection))
        }
    }

    func publish<Keys: Sequence<String>>(_ keys: Keys, _ kind: ModelStore.Change.Kind, in space: KeySpace = .default) {
        let continuations = subscribers.withLock { Array($0.values) }
        guard !continuations.isEmpty else { return }
        for key in keys {
            let change = ModelStore.Change(key: key, kind: kind, collection: space.collection)
            for continuation in continuations { continuation.yield(change) }
        }
    }

    func publish(_ changes: [ModelStore.Change]) {
        for continuation in subscribers.withLock({ Array($0.values) }) {
            for change in changes { continuation.yield(change) }
        }
    }

    /// Ends every stream; called when the database closes.
    func finishAll() {
        finished.withLock { $0 = true }
        let continuations = subscribers.withLock { subscribers in
            defer {
                subscribers.removeAll()
                subscriberCount.store(0)
            }
            return Array(subscribers.values)
        }
        for continuation in continuations { continuation.finish() }
    }
}
