import Foundation

/// The reads a ``ModelStore``, a ``ModelStore/Collection`` and a ``ModelStore/Snapshot`` share,
/// declared once: each reads its own key space (the store's own keys, or a collection's) of
/// the live database, or of the view a snapshot keeps.
///
/// ```swift
/// func newestUsers(in reader: some ModelReader) throws -> [User] {
///     try reader.entries(User.self, reverse: true, limit: 20).collect().map(\.value)
/// }
/// try newestUsers(in: store)
/// try newestUsers(in: store.collection("users"))
/// try newestUsers(in: store.snapshot())
/// ```
///
/// ModelStore's own types are the only conformers: the requirement is an implementation detail.
public protocol ModelReader: Sendable {
    /// The core every call forwards to; not API.
    var _scope: _Scope { get }
}

extension ModelReader {
    /// Returns the model stored for `key`, or nil if there is none or it has expired.
    ///
    /// ```swift
    /// let user = try store.object(User.self, forKey: "user")
    /// let cached: User? = try store.object(forKey: "user")     // the type from the context
    /// ```
    ///
    /// Reading an expired record removes it (one written by this release; an older record is
    /// left for a sweep, see "On disk" in the README). With
    /// ``ModelStore/Configuration/objectCacheLimit`` above zero, a repeated read of the same key is
    /// answered from memory without touching LevelDB or the codec.
    ///
    /// - Throws: ``ModelStoreError/decodingFailed(key:type:message:)`` if the stored record
    ///   does not decode as `Value` (the record is left untouched);
    ///   ``ModelStoreError/corrupted(path:message:)`` naming the key if it fails its checksum;
    ///   ``ModelStoreError/invalidKey(key:reason:)``; ``ModelStoreError/closed(path:)``.
    @inlinable
    public func object<Value: Decodable>(_ type: Value.Type = Value.self, forKey key: String) throws -> Value? {
        try _scope.object(type, forKey: key)
    }

    /// Returns the model stored for `key` with when it was stored, when it expires, its
    /// metadata and tags, or nil if there is none or it has expired.
    ///
    /// ```swift
    /// if let entry = try store.entry(User.self, forKey: "user") {
    ///     print(entry.storedAt, entry.expiresAt ?? "never")
    /// }
    /// if let stale = try store.entry(User.self, forKey: "user", includingExpired: true) {
    ///     show(stale.value, outdated: stale.isExpired)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - type: The model's type.
    ///   - key: The record's key.
    ///   - includingExpired: Whether to return an expired record too (marked
    ///     ``ModelStore/Entry/isExpired``), without removing it: for showing stale content while
    ///     the source is unreachable.
    /// - Throws: As ``object(_:forKey:)``.
    public func entry<Value: Decodable>(
        _ type: Value.Type, forKey key: String, includingExpired: Bool = false
    ) throws -> ModelStore.Entry<Value>? {
        try _scope.entry(type, forKey: key, includingExpired: includingExpired)
    }

    /// Returns the metadata stored beside the model for `key`, without decoding the model; nil
    /// if there is no record, it has expired, or it was stored without metadata.
    ///
    /// ```swift
    /// if let info = try store.metadata(HTTPInfo.self, forKey: "u1") {
    ///     request.setValue(info.etag, forHTTPHeaderField: "If-None-Match")
    /// }
    /// ```
    ///
    /// Only the record's envelope is read: a model that no longer decodes does not matter.
    /// Reading an expired record removes it, as ``object(_:forKey:)`` does.
    ///
    /// - Throws: ``ModelStoreError/decodingFailed(key:type:message:)`` naming the key if the
    ///   metadata does not decode as `type`; otherwise as ``object(_:forKey:)``.
    @inlinable
    public func metadata<Metadata: Decodable>(_ type: Metadata.Type, forKey key: String) throws -> Metadata? {
        // A shell compiled in the caller's module, for the caller's type: only there is
        // `Metadata?` free. In ModelStore's own, unspecialised code every function that holds one
        // looks up `Optional<Metadata>`'s type metadata on each call, so the read decodes into a
        // slot of `Metadata` itself.
        try _scope.metadata(type, forKey: key)
    }

    /// Whether a record that has not expired is stored for `key`. Does not decode the model.
    ///
    /// - Throws: ``ModelStoreError/invalidKey(key:reason:)``; ``ModelStoreError/closed(path:)``.
    public func contains(_ key: String) throws -> Bool {
        try _scope.contains(key)
    }

    /// Returns a cursor over the keys of live records in `range`, in key order.
    ///
    /// ```swift
    /// for key in try store.keys(in: .prefix("feed:")).collect() { print(key) }
    ///
    /// let newestFirst = try store.keys(reverse: true, limit: 10)
    /// while let key = try newestFirst.next() { print(key) }
    /// ```
    ///
    /// Expired records are skipped (not removed); models are not decoded.
    ///
    /// - Parameters:
    ///   - range: Which keys: ``KeyRange/all`` (the default), a ``KeyRange/prefix(_:)`` or a
    ///     ``KeyRange/range(from:to:)``.
    ///   - reverse: Whether to walk from the last key to the first.
    ///   - limit: The most keys to return; nil for no limit.
    /// - Throws: ``ModelStoreError/closed(path:)``.
    public func keys(in range: KeyRange = .all, reverse: Bool = false, limit: Int? = nil) throws -> Cursor<String> {
        try _scope.keys(in: range, reverse: reverse, limit: limit)
    }

    /// Returns a cursor over the live records in `range`, decoded as `type`, with their
    /// metadata, in key order.
    ///
    /// ```swift
    /// let users = try store.entries(User.self, in: .prefix("user:"))
    /// while let entry = try users.next() {
    ///     print(entry.key, entry.value.userName, entry.storedAt)
    /// }
    /// ```
    ///
    /// - Parameters: As ``keys(in:reverse:limit:)``.
    /// - Throws: ``ModelStoreError/closed(path:)``; the cursor's ``Cursor/next()`` throws
    ///   ``ModelStoreError/decodingFailed(key:type:message:)`` for a record of another type and
    ///   ``ModelStoreError/corrupted(path:message:)`` naming the key for a record that fails its
    ///   checksum, and goes on after either when called again.
    public func entries<Value: Decodable>(
        _ type: Value.Type, in range: KeyRange = .all, reverse: Bool = false, limit: Int? = nil
    ) throws -> Cursor<ModelStore.Entry<Value>> {
        try _scope.entries(type, in: range, reverse: reverse, limit: limit)
    }

    /// The number of live (unexpired) records in `range`. Reads headers only.
    ///
    /// - Complexity: O(*n*) in the records in `range`.
    public func count(in range: KeyRange = .all) throws -> Int {
        try _scope.count(in: range)
    }

    /// Reads the models for many keys from one consistent view of the database.
    ///
    /// ```swift
    /// let users = try store.objects(User.self, forKeys: ["u1", "u2", "u3"])  // [String: User]
    /// ```
    ///
    /// Missing and expired keys are left out of the result.
    ///
    /// Keys are records by their bytes, but a Swift dictionary treats canonically equivalent
    /// strings ("é" as U+00E9 and as "e" plus U+0301) as one key. If `keys` holds two such
    /// spellings, the first of them that has a record wins, with its own value. To read
    /// every spelling, use ``entries(_:forKeys:)``.
    ///
    /// - Throws: ``ModelStoreError/invalidKey(key:reason:)``,
    ///   ``ModelStoreError/decodingFailed(key:type:message:)``.
    public func objects<Value: Decodable, Keys: Sequence<String>>(
        _ type: Value.Type, forKeys keys: Keys
    ) throws -> [String: Value] {
        try _scope.objects(type, forKeys: keys)
    }

    /// Reads the records for many keys from one consistent view of the database, in the order
    /// of `keys`, with their metadata.
    ///
    /// ```swift
    /// for entry in try store.entries(User.self, forKeys: ["u1", "u2"]) {
    ///     print(entry.key, entry.value.userName)
    /// }
    /// ```
    ///
    /// Missing and expired keys are left out. Each key is read by its bytes, as LevelDB
    /// stores it, so unlike ``objects(_:forKeys:)`` two canonically equivalent spellings of a
    /// key each return their own record; a key given twice is returned twice.
    ///
    /// - Throws: As ``objects(_:forKeys:)``.
    public func entries<Value: Decodable, Keys: Sequence<String>>(
        _ type: Value.Type, forKeys keys: Keys
    ) throws -> [ModelStore.Entry<Value>] {
        try _scope.entries(type, forKeys: keys)
    }
}
