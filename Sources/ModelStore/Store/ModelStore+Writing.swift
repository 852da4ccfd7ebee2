public import Foundation

extension ModelStore {
    /// Stores `value` under `key`, replacing what was there.
    ///
    /// ```swift
    /// try store.set(user, forKey: "user")                                 // the store's policy
    /// try store.set(session, forKey: "session", expiresAfter: 30)         // 30 seconds
    /// try store.set(user, forKey: "u1", metadata: HTTPInfo(etag: etag))   // beside the model
    /// try store.set(user, forKey: "user:42", tags: ["team:7", "org:1"])   // see removeObjects(taggedWith:)
    /// ```
    ///
    /// Metadata (an ETag, a Last-Modified date) is kept beside the model in the record and read
    /// back with ``metadata(_:forKey:)`` or ``Entry/metadata(_:)`` without decoding the model.
    /// Tags are stored in the record, and one tag-index entry per tag is written in the same
    /// atomic write; a later write of the key replaces them with its own (none, without `tags`).
    ///
    /// - Parameters:
    ///   - value: The model to store.
    ///   - key: The key to store it under: 1 to ``maximumKeyLength`` UTF-8 bytes.
    ///   - lifetime: Seconds until the record expires, positive and finite; it wins over the
    ///     store's policy, shorter or longer. Nil: the store's policy.
    ///   - metadata: Metadata to keep beside the model; nil: none.
    ///   - tags: 1 to 1,024 UTF-8 bytes each; repeats are stored once; compared by bytes.
    /// - Throws: ``ModelStoreError/encodingFailed(key:type:message:)`` naming the model or the
    ///   metadata (nothing is written); ``ModelStoreError/invalidKey(key:reason:)``;
    ///   ``ModelStoreError/invalidPolicy(reason:)`` for a bad lifetime;
    ///   ``ModelStoreError/invalidTag(tag:reason:)``; ``ModelStoreError/valueTooLarge(key:byteCount:)``;
    ///   ``ModelStoreError/writesDisabled(path:message:)`` after an earlier write failure;
    ///   ``ModelStoreError/io(path:message:)``; ``ModelStoreError/closed(path:)``.
    public func set<Value: Encodable>(
        _ value: Value, forKey key: String, expiresAfter lifetime: TimeInterval? = nil,
        metadata: (any Codable & Sendable)? = nil, tags: [String] = []
    ) throws {
        try scope.set(value, forKey: key, lifetime: lifetime, metadata: metadata, tags: tags)
    }

    /// Removes the record for `key`. Removing a key that is not stored succeeds.
    ///
    /// ``changes(bufferingPolicy:)`` reports `.removed` if a live record was removed,
    /// `.expired` if the record had already expired, and nothing if there was none.
    ///
    /// - Throws: ``ModelStoreError/invalidKey(key:reason:)``; write errors as
    ///   ``set(_:forKey:expiresAfter:metadata:tags:)``.
    public func removeObject(forKey key: String) throws {
        try scope.removeObject(forKey: key)
    }

    /// Removes the records for all `keys` in one atomic write: all are removed or none.
    ///
    /// ```swift
    /// try store.removeObjects(forKeys: ["a", "b"])
    /// ```
    ///
    /// ``changes(bufferingPolicy:)`` reports each record once: `.removed` for a live record,
    /// `.expired` for one that had already expired, nothing for a key with no record (or
    /// given twice).
    ///
    /// - Throws: ``ModelStoreError/invalidKey(key:reason:)`` before anything is removed if any
    ///   key is invalid; write errors as ``set(_:forKey:expiresAfter:metadata:tags:)``.
    public func removeObjects<Keys: Sequence<String>>(forKeys keys: Keys) throws {
        try scope.removeObjects(forKeys: keys)
    }

    /// Removes every record whose key starts with `prefix`, and returns how many live records
    /// it removed.
    ///
    /// ```swift
    /// try store.removeObjects(withPrefix: "feed:")
    /// ```
    ///
    /// Records under the prefix that had already expired are removed too, but not counted
    /// (so the result matches what ``count(in:)`` said just before), and
    /// ``changes(bufferingPolicy:)`` reports them as `.expired`, as a sweep does; live
    /// records are reported as `.removed`. The keys are removed in atomic chunks, each under
    /// the exclusive write gate; records written under the prefix while the call runs may or
    /// may not be removed.
    ///
    /// - Complexity: O(*n*) in the number of matching records; memory stays bounded.
    @discardableResult
    public func removeObjects(withPrefix prefix: String) throws -> Int {
        try scope.removeObjects(withPrefix: prefix)
    }

    /// Removes every record of the default collection (the store's own keys) and compacts
    /// them so the space is given back to the file system. Returns how many live records it
    /// removed; expired ones are removed too and reported as `.expired`, as by
    /// ``removeObjects(withPrefix:)``.
    ///
    /// Named collections (``collection(_:)``) are left alone: each has its own
    /// ``Collection/removeAllObjects()``.
    @discardableResult
    public func removeAllObjects() throws -> Int {
        try scope.removeAllObjects()
    }

    /// Removes every record written with `tag` (whose current version still carries it), in
    /// every collection, and returns how many live records it removed; expired ones are removed
    /// too, not counted.
    ///
    /// ```swift
    /// try store.set(user, forKey: "user:42", tags: ["team:7"])
    /// let removed = try store.removeObjects(taggedWith: "team:7")   // 1
    /// ```
    ///
    /// After it returns, no read, cursor, count or snapshot taken afterwards sees a record that
    /// carried the tag; records written later with the tag are unaffected. Records written with
    /// the tag while the call runs may or may not be removed. ``changes(bufferingPolicy:)``
    /// reports `.removed` for live records and `.expired` for expired ones. It walks the tag's
    /// index entries in atomic chunks, each read and removed under the exclusive write gate (so
    /// a record a concurrent writer replaces between the read and the removal is never deleted
    /// by mistake). Entries left by records since overwritten or removed are dropped on the way.
    ///
    /// - Complexity: O(*n*) in the tag's index entries; memory stays bounded.
    /// - Throws: ``ModelStoreError/invalidTag(tag:reason:)``; read and write errors as
    ///   ``removeObjects(forKeys:)``.
    @discardableResult
    public func removeObjects(taggedWith tag: String) throws -> Int {
        try scope.removeObjects(taggedWith: tag)
    }

    /// Removes every expired record, then, if ``Configuration/maximumRecordCount`` or
    /// ``Configuration/maximumTotalBytes`` is set, the oldest records beyond those limits.
    /// Returns how many records it removed.
    ///
    /// It sweeps the whole database: the default collection and every named collection
    /// (``collection(_:)``). Each record is judged by its own deadline (a lifetime given when
    /// it was written, or stamped by a collection opened with a policy), else by this store's
    /// policy. The limits are database-wide: they count the records of every collection
    /// together, and the oldest records go first, whichever collection they are in.
    ///
    /// ```swift
    /// let removed = try store.removeExpiredObjects()
    /// ```
    ///
    /// A sweep reads only record headers; it never decodes a model. It works in chunks, each
    /// holding off other writers only briefly and re-checking records under that hold, so it
    /// never removes a record that was just rewritten. After removing 1,000 records or more it
    /// starts a compaction of the affected key range on a background queue, because LevelDB
    /// keeps deleted data on disk until a compaction rewrites it; the sweep returns without
    /// waiting for it. Call ``compact(in:)`` to compact and wait.
    ///
    /// - Complexity: O(*n*) in the records in the database.
    /// - Throws: A write error as ``set(_:forKey:expiresAfter:metadata:tags:)``;
    ///   ``ModelStoreError/closed(path:)``.
    @discardableResult
    public func removeExpiredObjects() throws -> Int {
        try scope.removeExpiredObjects(range: KeySpace.userRecords, enforcingLimits: true)
    }

    /// Replaces the metadata stored beside the model for `key`, leaving the model's stored
    /// bytes, `storedAt` and any deadline exactly as they were. Returns false, writing nothing,
    /// if there is no record or it has expired.
    ///
    /// ```swift
    /// let replaced = try store.replaceMetadata(HTTPInfo(etag: "\"def\""), forKey: "u1")
    /// ```
    ///
    /// The model is neither decoded nor re-encoded. The read and the write happen under the
    /// store's write gate held exclusively, so a concurrent ``set(_:forKey:expiresAfter:metadata:tags:)``
    /// is never undone by this rewrite. ``changes(bufferingPolicy:)`` reports `.set`.
    ///
    /// - Throws: ``ModelStoreError/encodingFailed(key:type:message:)`` if the metadata does not
    ///   encode; ``ModelStoreError/corrupted(path:message:)`` if the record fails its checksum;
    ///   otherwise as ``set(_:forKey:expiresAfter:metadata:tags:)``.
    @discardableResult
    public func replaceMetadata(_ metadata: any Codable & Sendable, forKey key: String) throws -> Bool {
        try scope.replaceMetadata(metadata, forKey: key)
    }

    /// Restarts the lifetime of the record for `key` without touching its model: what a
    /// `304 Not Modified` answer needs. Returns false, writing nothing, if there is no record
    /// or it has expired.
    ///
    /// ```swift
    /// // The server says the cached copy is still current:
    /// try store.refresh(forKey: "u1", metadata: HTTPInfo(etag: etag, lastModified: lastModified))
    /// ```
    ///
    /// `storedAt` becomes now. With `lifetime`, the record gets that deadline; without one, a
    /// record stored with a lifetime of its own gets the same lifetime again from now, one that
    /// never expires still never does, and one that expires by the store's policy keeps doing
    /// so. The model's stored bytes stay identical; the metadata is replaced when `metadata` is
    /// given and kept when it is nil. Runs under the exclusive write gate like
    /// ``replaceMetadata(_:forKey:)``, and ``changes(bufferingPolicy:)`` reports `.set`.
    ///
    /// - Parameters:
    ///   - key: The record's key.
    ///   - lifetime: A new lifetime in seconds, positive and finite; nil keeps the record's own.
    ///   - metadata: New metadata; nil keeps what is stored.
    /// - Throws: ``ModelStoreError/invalidPolicy(reason:)`` for a bad lifetime; otherwise as
    ///   ``replaceMetadata(_:forKey:)``.
    @discardableResult
    public func refresh(
        forKey key: String, expiresAfter lifetime: TimeInterval? = nil, metadata: (any Codable & Sendable)? = nil
    ) throws -> Bool {
        try scope.refresh(forKey: key, lifetime: lifetime, metadata: metadata)
    }
}
