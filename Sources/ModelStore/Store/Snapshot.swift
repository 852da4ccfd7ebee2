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
    /// A snapshot offers the store's reads (``ModelReader``) on the database as it was when the
    /// snapshot was taken: later writes, removals and sweeps
    /// are invisible to it. Records that have expired by the store's clock read as missing, but
    /// a snapshot never deletes anything and never uses the object cache. It keeps its database
    /// open (even if the store is closed) until it is closed or released; after the database is
    /// deleted its reads throw ``ModelStoreError/closed(path:)``.
    ///
    /// A snapshot is `Sendable` and may be read from many threads. Release it (or call
    /// ``close()``) when done: LevelDB keeps the data it can see until then.
    public final class Snapshot: ModelReader {
        /// The snapshot's key space and view: every read forwards to it.
        @usableFromInline
        let scope: Scope

        /// The core every read forwards to; not API.
        public var _scope: _Scope { scope }

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
