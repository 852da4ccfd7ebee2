public import Foundation

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
    /// A collection shares everything else with its store: one LevelDB database, one lock,
    /// one object cache, one ``changes(bufferingPolicy:)`` stream (each ``Change`` names its
    /// collection), write batches (``WriteBatch/set(_:forKey:in:)-(_,_,String)``) and snapshots
    /// (``Snapshot/collection(_:)``) that span collections. Creating one does no I/O (with a
    /// policy, only the first time in the process: see ``collection(_:policy:)``); a
    /// collection exists on disk while it holds records (see ``collectionNames()``).
    ///
    /// Names are 1 to 255 UTF-8 bytes without NUL, compared by their bytes like keys (so
    /// "é" as U+00E9 and as "e" plus U+0301 name two collections). An invalid name (or policy)
    /// is reported by every call on the collection, as ``ModelStoreError/invalidName(name:reason:)``
    /// (or ``ModelStoreError/invalidPolicy(reason:)``).
    ///
    /// A collection is a `Sendable` value: copy it freely; it stays usable while its store is
    /// open.
    public struct Collection: Sendable {
        /// The store the collection belongs to.
        public let store: ModelStore
        /// The collection's name.
        public let name: String
        /// The policy given to ``ModelStore/collection(_:policy:)``, or nil: the store's
        /// policy applies.
        public let policy: UpdatePolicy?
        /// The key space and the lifetime, once the name and the policy are known to be valid.
        /// Private to this file: every other part of ModelStore reaches them through
        /// ``checked``, which throws for an invalid collection, so no entry point can write,
        /// read or remove with an unchecked name or policy.
        private let target: Target
        /// Why the name or policy is invalid, thrown by every call; nil if both are valid.
        private let failure: ModelStoreError?
        /// The collection's read-through counters (`collection=<name>`), looked up once here so
        /// a read-through hit takes no lock to find them.
        let readThroughMetrics: ReadThroughMetrics

        /// Where a collection's records go and how long they live.
        struct Target {
            /// The key space (the default one if the name is invalid: never used then).
            let space: KeySpace
            /// The lifetime given to each record the collection writes without one of its own:
            /// nil when the store's policy applies, ``RecordHeader/neverLifetime`` for `.never`
            /// (stored as the envelope's "never expires" flag).
            let lifetime: TimeInterval?
        }

        init(store: ModelStore, name: String, policy: UpdatePolicy?) {
            self.store = store
            self.name = name
            self.policy = policy
            var space = KeySpace.default
            do throws(ModelStoreError) {
                try policy?.validate()
                space = try KeySpace(collection: name)
                failure = nil
            } catch {
                failure = error
            }
            // A `.never` policy is a record flag, so another instance, whatever its own policy,
            // never expires or sweeps the collection's records.
            target = Target(space: space, lifetime: policy.map { $0.timeToLive ?? RecordHeader.neverLifetime })
            // An invalid collection counts nowhere of its own: every call throws before counting.
            readThroughMetrics = store.database.readThroughMetrics.metrics(for: space)
        }

        /// The key space and lifetime; throws ``ModelStoreError/invalidName(name:reason:)`` or
        /// ``ModelStoreError/invalidPolicy(reason:)`` for an invalid collection. The one way to
        /// reach either.
        @inline(__always)
        var checked: Target {
            get throws(ModelStoreError) {
                // A stored value and an optional check, not a Result: this runs on every call,
                // cached reads included.
                if let failure { throw failure }
                return target
            }
        }

        /// The key space, through ``checked``.
        @inline(__always)
        var space: KeySpace {
            get throws(ModelStoreError) { try checked.space }
        }

        /// The lifetime of records written without one of their own, through ``checked``.
        @inline(__always)
        var lifetime: TimeInterval? {
            get throws(ModelStoreError) { try checked.lifetime }
        }

        // MARK: - Writing

        /// Stores `value` under `key` in this collection, replacing what was there. It
        /// expires by the collection's policy if it has one (stamped on the record as its own
        /// deadline, so every store on the database honours it), else by the store's.
        ///
        /// - Throws: As ``ModelStore/set(_:forKey:)``; ``ModelStoreError/invalidName(name:reason:)``.
        public func set<Value: Encodable>(_ value: Value, forKey key: String) throws {
            let target = try checked
            try store.store(value, forKey: key, lifetime: target.lifetime, space: target.space)
        }

        /// Stores `value` under `key` with a lifetime of its own, which wins over the
        /// collection's and the store's policy.
        ///
        /// - Throws: As ``ModelStore/set(_:forKey:expiresAfter:)``.
        public func set<Value: Encodable>(
            _ value: Value, forKey key: String, expiresAfter lifetime: TimeInterval
        ) throws {
            try UpdatePolicy.validate(lifetime: lifetime, what: "record lifetime")
            try store.store(value, forKey: key, lifetime: lifetime, space: space)
        }

        /// Removes the record for `key` from this collection.
        ///
        /// - Throws: As ``ModelStore/removeObject(forKey:)``.
        public func removeObject(forKey key: String) throws {
            try store.removeObject(forKey: key, space: space)
        }

        /// Removes the records for all `keys` from this collection in one atomic write.
        ///
        /// - Throws: As ``ModelStore/removeObjects(forKeys:)``.
        public func removeObjects<Keys: Sequence<String>>(forKeys keys: Keys) throws {
            try store.removeObjects(forKeys: keys, space: space)
        }

        /// Removes every record of this collection whose key starts with `prefix`, and
        /// returns how many live records it removed. An empty prefix removes the collection's
        /// every record.
        ///
        /// - Throws: As ``ModelStore/removeObjects(withPrefix:)``.
        @discardableResult
        public func removeObjects(withPrefix prefix: String) throws -> Int {
            try store.removeObjects(withPrefix: prefix, space: space)
        }

        /// Removes every record of this collection, and no other (the store's own keys and
        /// other collections stay), then compacts its keys. Returns how many live records it
        /// removed.
        @discardableResult
        public func removeAllObjects() throws -> Int {
            try store.removeAllObjects(space: space)
        }

        /// Removes this collection's expired records (judged by their own deadlines, else by
        /// the store's policy) and returns how many. The store's
        /// ``ModelStore/removeExpiredObjects()`` sweeps every collection and applies the
        /// database-wide limits; this one sweeps only this collection and applies no limits.
        @discardableResult
        public func removeExpiredObjects() throws -> Int {
            try store.removeExpiredObjects(range: space.all, enforcingLimits: false)
        }

        // MARK: - Reading

        /// Returns the model stored for `key` in this collection, or nil if there is none or
        /// it has expired.
        ///
        /// - Throws: As ``ModelStore/object(forKey:)``.
        public func object<Value: Decodable>(forKey key: String) throws -> Value? {
            try store.object(Value.self, forKey: key, space: space)
        }

        /// Returns the model of type `type` stored for `key` in this collection.
        ///
        /// - Throws: As ``ModelStore/object(forKey:)``.
        public func object<Value: Decodable>(_ type: Value.Type, forKey key: String) throws -> Value? {
            try store.object(type, forKey: key, space: space)
        }

        /// Returns the record for `key` in this collection with its metadata.
        ///
        /// - Throws: As ``ModelStore/object(forKey:)``.
        public func entry<Value: Decodable>(_ type: Value.Type, forKey key: String) throws -> Entry<Value>? {
            try store.entry(type, forKey: key, space: space)
        }

        /// Returns the record for `key` even if it has expired, without removing it.
        ///
        /// - Throws: As ``ModelStore/object(forKey:)``.
        public func entry<Value: Decodable>(
            _ type: Value.Type, forKey key: String, includingExpired: Bool
        ) throws -> Entry<Value>? {
            try store.entry(type, forKey: key, includingExpired: includingExpired, space: space)
        }

        /// Whether this collection holds a live record for `key`. Does not decode the model.
        public func contains(_ key: String) throws -> Bool {
            try store.contains(key, space: space)
        }

        /// A cursor over the keys of this collection's live records in `range`, in key order.
        /// The keys are the collection's own, without any marker.
        public func keys(in range: KeyRange = .all, reverse: Bool = false, limit: Int? = nil) throws -> Cursor<String> {
            try queries().keys(in: range, reverse: reverse, limit: limit)
        }

        /// A cursor over this collection's live records in `range`, decoded as `type`.
        public func entries<Value: Decodable>(
            _ type: Value.Type, in range: KeyRange = .all, reverse: Bool = false, limit: Int? = nil
        ) throws -> Cursor<Entry<Value>> {
            try queries().entries(type, in: range, reverse: reverse, limit: limit)
        }

        /// The number of this collection's live records in `range`. Reads headers only.
        public func count(in range: KeyRange = .all) throws -> Int {
            try queries().count(in: range)
        }

        /// Reads the models for many keys of this collection from one consistent view.
        ///
        /// - Throws: As ``ModelStore/objects(_:forKeys:)``.
        public func objects<Value: Decodable, Keys: Sequence<String>>(
            _ type: Value.Type, forKeys keys: Keys
        ) throws -> [String: Value] {
            try queries().objects(type, forKeys: keys)
        }

        /// Reads the records for many keys of this collection from one consistent view, in
        /// the order of `keys`.
        ///
        /// - Throws: As ``ModelStore/entries(_:forKeys:)``.
        public func entries<Value: Decodable, Keys: Sequence<String>>(
            _ type: Value.Type, forKeys keys: Keys
        ) throws -> [Entry<Value>] {
            try queries().entries(type, forKeys: keys)
        }

        private func queries() throws -> RecordQueries {
            var queries = try store.queries
            queries.space = try space
            return queries
        }
    }
}
