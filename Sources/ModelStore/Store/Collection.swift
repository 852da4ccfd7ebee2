import Foundation

extension ModelStore {
    /// A named key space inside the store's database: its keys never meet the keys of
    /// another collection or of the store itself (the default collection), whatever bytes
    /// they hold.
    ///
    /// ```swift
    /// let users = store.collection("users")
    /// try users.set(user, forKey: "42")
    /// let same = try users.object(User.self, forKey: "42")
    /// try store.contains("42")     // false: the store's own keys are another collection
    /// ```
    ///
    /// A collection offers the store's key-level calls (``ModelReader`` and ``ModelWriter``), in
    /// the collection's key space and with its policy: a record written
    /// without a lifetime of its own carries the collection's, so every store on the database
    /// honours it. It shares everything else with its store: one LevelDB database, one lock,
    /// one object cache, one ``changes(bufferingPolicy:)`` stream (each ``Change`` names its
    /// collection), write batches (``WriteBatch/set(_:forKey:in:expiresAfter:metadata:tags:)-5xdgl``)
    /// and snapshots (``Snapshot/collection(_:)``) that span collections. Creating one does no
    /// I/O (with a policy, only the first time in the process: see ``collection(_:policy:)``); a
    /// collection exists on disk while it holds records (see ``collectionNames()``).
    ///
    /// Names are 1 to 255 UTF-8 bytes without NUL, compared by their bytes like keys (so
    /// "é" as U+00E9 and as "e" plus U+0301 name two collections). An invalid name (or policy)
    /// is reported by every call on the collection, as ``ModelStoreError/invalidName(name:reason:)``
    /// (or ``ModelStoreError/invalidPolicy(reason:)``).
    ///
    /// A collection is a `Sendable` value: copy it freely; it stays usable while its store is
    /// open.
    public struct Collection: ModelWriter {
        /// The store the collection belongs to.
        public let store: ModelStore
        /// The collection's name.
        public let name: String
        /// The policy given to ``ModelStore/collection(_:policy:)``, or nil: the store's
        /// policy applies.
        public let policy: UpdatePolicy?
        /// The collection's key space and lifetime: every call forwards to it.
        @usableFromInline
        let scope: Scope

        /// The core every call forwards to; not API.
        public var _scope: _Scope { scope }

        init(store: ModelStore, name: String, policy: UpdatePolicy?) {
            self.store = store
            self.name = name
            self.policy = policy
            scope = store.scope.collection(name, policy: policy)
        }

        /// Removes this collection's expired records (judged by their own deadlines, else by the
        /// store's policy) and returns how many. The store's ``ModelStore/removeExpiredObjects()``
        /// sweeps every collection and applies the database-wide limits; this one sweeps only
        /// this collection and applies no limits.
        @discardableResult
        public func removeExpiredObjects() throws -> Int {
            try scope.removeExpiredObjects(range: scope.checkedSpace.all, enforcingLimits: false)
        }

        /// The policy recorded for this collection: the one it was last given with
        /// ``ModelStore/collection(_:policy:)``, or nil if it never was. See ``ModelStore/recordedPolicy()``.
        public func recordedPolicy() throws -> UpdatePolicy? {
            try scope.recordedPolicy()
        }
    }
}
