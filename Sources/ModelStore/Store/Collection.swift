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
    /// A collection offers the store's key-level calls, which behave as the store's do (see
    /// each one there), in the collection's key space and with its policy: a record written
    /// without a lifetime of its own carries the collection's, so every store on the database
    /// honours it. It shares everything else with its store: one LevelDB database, one lock,
    /// one object cache, one ``changes(bufferingPolicy:)`` stream (each ``Change`` names its
    /// collection), write batches (``WriteBatch/set(_:forKey:in:expiresAfter:metadata:tags:)-(_,_,Collection?,_,_,_)``)
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
    public struct Collection: Sendable {
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

        init(store: ModelStore, name: String, policy: UpdatePolicy?) {
            self.store = store
            self.name = name
            self.policy = policy
            scope = store.scope.collection(name, policy: policy)
        }

        // MARK: - Writing

        /// Stores `value` under `key` in this collection, living `lifetime` seconds, else by the
        /// collection's policy, else by the store's. See ``ModelStore/set(_:forKey:expiresAfter:metadata:tags:)``.
        public func set<Value: Encodable>(
            _ value: Value, forKey key: String, expiresAfter lifetime: TimeInterval? = nil,
            metadata: (any Codable & Sendable)? = nil, tags: [String] = []
        ) throws {
            try scope.set(value, forKey: key, lifetime: lifetime, metadata: metadata, tags: tags)
        }

        /// Removes the record for `key` from this collection. See ``ModelStore/removeObject(forKey:)``.
        public func removeObject(forKey key: String) throws {
            try scope.removeObject(forKey: key)
        }

        /// Removes the records for all `keys` from this collection in one atomic write. See
        /// ``ModelStore/removeObjects(forKeys:)``.
        public func removeObjects<Keys: Sequence<String>>(forKeys keys: Keys) throws {
            try scope.removeObjects(forKeys: keys)
        }

        /// Removes every record of this collection whose key starts with `prefix` (all of them
        /// for an empty prefix) and returns how many were live. See ``ModelStore/removeObjects(withPrefix:)``.
        @discardableResult
        public func removeObjects(withPrefix prefix: String) throws -> Int {
            try scope.removeObjects(withPrefix: prefix)
        }

        /// Removes every record of this collection, and no other (the store's own keys and other
        /// collections stay), then compacts its keys. Returns how many live records it removed.
        @discardableResult
        public func removeAllObjects() throws -> Int {
            try scope.removeAllObjects()
        }

        /// Removes this collection's expired records (judged by their own deadlines, else by the
        /// store's policy) and returns how many. The store's ``ModelStore/removeExpiredObjects()``
        /// sweeps every collection and applies the database-wide limits; this one sweeps only
        /// this collection and applies no limits.
        @discardableResult
        public func removeExpiredObjects() throws -> Int {
            try scope.removeExpiredObjects(range: scope.checkedSpace.all, enforcingLimits: false)
        }

        /// Replaces the metadata of this collection's record for `key`. See
        /// ``ModelStore/replaceMetadata(_:forKey:)``.
        @discardableResult
        public func replaceMetadata(_ metadata: any Codable & Sendable, forKey key: String) throws -> Bool {
            try scope.replaceMetadata(metadata, forKey: key)
        }

        /// Restarts the lifetime of this collection's record for `key` without touching its model;
        /// a record written with the collection's policy restarts with the same length. See
        /// ``ModelStore/refresh(forKey:expiresAfter:metadata:)``.
        @discardableResult
        public func refresh(
            forKey key: String, expiresAfter lifetime: TimeInterval? = nil, metadata: (any Codable & Sendable)? = nil
        ) throws -> Bool {
            try scope.refresh(forKey: key, lifetime: lifetime, metadata: metadata)
        }

        // MARK: - Reading

        /// The model stored for `key` in this collection, or nil. See ``ModelStore/object(_:forKey:)``.
        public func object<Value: Decodable>(_ type: Value.Type = Value.self, forKey key: String) throws -> Value? {
            try scope.object(type, forKey: key)
        }

        /// The record for `key` in this collection with its metadata and tags. See
        /// ``ModelStore/entry(_:forKey:includingExpired:)``.
        public func entry<Value: Decodable>(
            _ type: Value.Type, forKey key: String, includingExpired: Bool = false
        ) throws -> Entry<Value>? {
            try scope.entry(type, forKey: key, includingExpired: includingExpired)
        }

        /// The metadata stored beside this collection's model for `key`. See
        /// ``ModelStore/metadata(_:forKey:)``.
        @inlinable
        public func metadata<Metadata: Decodable>(_ type: Metadata.Type, forKey key: String) throws -> Metadata? {
            try scope.metadata(type, forKey: key)
        }

        /// Whether this collection holds a live record for `key`. See ``ModelStore/contains(_:)``.
        public func contains(_ key: String) throws -> Bool {
            try scope.contains(key)
        }

        /// A cursor over the keys of this collection's live records in `range`, without the
        /// collection's marker. See ``ModelStore/keys(in:reverse:limit:)``.
        public func keys(in range: KeyRange = .all, reverse: Bool = false, limit: Int? = nil) throws -> Cursor<String> {
            try scope.keys(in: range, reverse: reverse, limit: limit)
        }

        /// A cursor over this collection's live records in `range`. See
        /// ``ModelStore/entries(_:in:reverse:limit:)``.
        public func entries<Value: Decodable>(
            _ type: Value.Type, in range: KeyRange = .all, reverse: Bool = false, limit: Int? = nil
        ) throws -> Cursor<Entry<Value>> {
            try scope.entries(type, in: range, reverse: reverse, limit: limit)
        }

        /// The number of this collection's live records in `range`. See ``ModelStore/count(in:)``.
        public func count(in range: KeyRange = .all) throws -> Int {
            try scope.count(in: range)
        }

        /// Reads the models for many keys of this collection from one consistent view. See
        /// ``ModelStore/objects(_:forKeys:)``.
        public func objects<Value: Decodable, Keys: Sequence<String>>(
            _ type: Value.Type, forKeys keys: Keys
        ) throws -> [String: Value] {
            try scope.objects(type, forKeys: keys)
        }

        /// Reads the records for many keys of this collection from one consistent view, in the
        /// order of `keys`. See ``ModelStore/entries(_:forKeys:)``.
        public func entries<Value: Decodable, Keys: Sequence<String>>(
            _ type: Value.Type, forKeys keys: Keys
        ) throws -> [Entry<Value>] {
            try scope.entries(type, forKeys: keys)
        }

        // MARK: - Import

        /// Stores many models in this collection in atomic chunks, with the collection's policy.
        /// See ``ModelStore/importObjects(_:key:batchSize:sync:isolation:progress:)-(Sequence,_,_,_,_,_)``.
        @discardableResult
        @inlinable
        public func importObjects<Models: Sequence, Key: CustomStringConvertible>(
            _ models: Models, key: (Models.Element) throws -> Key, batchSize: Int = 1_000, sync: Bool? = nil,
            isolation: isolated (any Actor)? = #isolation, progress: ((ModelStore.ImportProgress) -> Void)? = nil
        ) async throws -> ModelStore.ImportReport where Models.Element: Encodable {
            try await ChunkedImporter.importObjects(
                models, key: key, into: scope, batchSize: batchSize, sync: sync, progress: progress)
        }

        /// Stores the models of an asynchronous sequence in this collection in atomic chunks. See
        /// ``ModelStore/importObjects(_:key:batchSize:sync:isolation:progress:)-(AsyncSequence,_,_,_,_,_)``.
        @discardableResult
        @inlinable
        public func importObjects<Models: AsyncSequence, Key: CustomStringConvertible>(
            _ models: Models, key: (Models.Element) throws -> Key, batchSize: Int = 1_000, sync: Bool? = nil,
            isolation: isolated (any Actor)? = #isolation, progress: ((ModelStore.ImportProgress) -> Void)? = nil
        ) async throws -> ModelStore.ImportReport where Models.Element: Encodable {
            try await ChunkedImporter.importObjects(
                models, key: key, into: scope, batchSize: batchSize, sync: sync, progress: progress)
        }

        /// The policy recorded for this collection: the one it was last given with
        /// ``ModelStore/collection(_:policy:)``, or nil if it never was. See ``ModelStore/recordedPolicy()``.
        public func recordedPolicy() throws -> UpdatePolicy? {
            try scope.recordedPolicy()
        }
    }
}
