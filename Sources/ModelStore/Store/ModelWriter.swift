public import Foundation

/// The writes a ``ModelStore`` and a ``ModelStore/Collection`` share, declared once: each
/// writes its own key space (the store's own keys, or a collection's), a collection with its
/// own policy.
///
/// ModelStore's own types are the only conformers: the requirement is an implementation detail.
public protocol ModelWriter: ModelReader {}

extension ModelWriter {
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
    /// back with ``ModelReader/metadata(_:forKey:)`` or ``ModelStore/Entry/metadata(_:)`` without decoding the model.
    /// Tags are stored in the record, and one tag-index entry per tag is written in the same
    /// atomic write; a later write of the key replaces them with its own (none, without `tags`).
    ///
    /// - Parameters:
    ///   - value: The model to store.
    ///   - key: The key to store it under: 1 to ``ModelStore/maximumKeyLength`` UTF-8 bytes.
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
        try _scope.set(value, forKey: key, lifetime: lifetime, metadata: metadata, tags: tags)
    }

    /// Removes the record for `key`. Removing a key that is not stored succeeds.
    ///
    /// ``ModelStore/changes(bufferingPolicy:)`` reports `.removed` if a live record was removed,
    /// `.expired` if the record had already expired, and nothing if there was none.
    ///
    /// - Throws: ``ModelStoreError/invalidKey(key:reason:)``; write errors as
    ///   ``ModelWriter/set(_:forKey:expiresAfter:metadata:tags:)-7tnvs``.
    public func removeObject(forKey key: String) throws {
        try _scope.removeObject(forKey: key)
    }

    /// Removes the records for all `keys` in one atomic write: all are removed or none.
    ///
    /// ```swift
    /// try store.removeObjects(forKeys: ["a", "b"])
    /// ```
    ///
    /// ``ModelStore/changes(bufferingPolicy:)`` reports each record once: `.removed` for a live record,
    /// `.expired` for one that had already expired, nothing for a key with no record (or
    /// given twice).
    ///
    /// - Throws: ``ModelStoreError/invalidKey(key:reason:)`` before anything is removed if any
    ///   key is invalid; write errors as ``ModelWriter/set(_:forKey:expiresAfter:metadata:tags:)-7tnvs``.
    public func removeObjects<Keys: Sequence<String>>(forKeys keys: Keys) throws {
        try _scope.removeObjects(forKeys: keys)
    }

    /// Removes every record whose key starts with `prefix`, and returns how many live records
    /// it removed.
    ///
    /// ```swift
    /// try store.removeObjects(withPrefix: "feed:")
    /// ```
    ///
    /// Records under the prefix that had already expired are removed too, but not counted
    /// (so the result matches what ``ModelReader/count(in:)`` said just before), and
    /// ``ModelStore/changes(bufferingPolicy:)`` reports them as `.expired`, as a sweep does; live
    /// records are reported as `.removed`. The keys are removed in atomic chunks, each under
    /// the exclusive write gate; records written under the prefix while the call runs may or
    /// may not be removed.
    ///
    /// - Complexity: O(*n*) in the number of matching records; memory stays bounded.
    @discardableResult
    public func removeObjects(withPrefix prefix: String) throws -> Int {
        try _scope.removeObjects(withPrefix: prefix)
    }

    /// Removes every record of the default collection (the store's own keys) and compacts
    /// them so the space is given back to the file system. Returns how many live records it
    /// removed; expired ones are removed too and reported as `.expired`, as by
    /// ``removeObjects(withPrefix:)``.
    ///
    /// Named collections (``ModelStore/collection(_:)``) are left alone: each has its own
    /// ``ModelStore/Collection/removeAllObjects()``.
    @discardableResult
    public func removeAllObjects() throws -> Int {
        try _scope.removeAllObjects()
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
    /// store's write gate held exclusively, so a concurrent ``ModelWriter/set(_:forKey:expiresAfter:metadata:tags:)-7tnvs``
    /// is never undone by this rewrite. ``ModelStore/changes(bufferingPolicy:)`` reports `.set`.
    ///
    /// - Throws: ``ModelStoreError/encodingFailed(key:type:message:)`` if the metadata does not
    ///   encode; ``ModelStoreError/corrupted(path:message:)`` if the record fails its checksum;
    ///   otherwise as ``ModelWriter/set(_:forKey:expiresAfter:metadata:tags:)-7tnvs``.
    @discardableResult
    public func replaceMetadata(_ metadata: any Codable & Sendable, forKey key: String) throws -> Bool {
        try _scope.replaceMetadata(metadata, forKey: key)
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
    /// ``replaceMetadata(_:forKey:)``, and ``ModelStore/changes(bufferingPolicy:)`` reports `.set`.
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
        try _scope.refresh(forKey: key, lifetime: lifetime, metadata: metadata)
    }

    /// ``ModelWriter/set(_:forKey:expiresAfter:metadata:tags:)-7tnvs`` for metadata of a
    /// type known where it is called (the usual case: `metadata: HTTPInfo(...)`, or an
    /// `HTTPInfo?` that may be nil: no metadata). The compiler picks it over the
    /// `any Codable & Sendable` one for such an argument; a literal `nil` goes to that one.
    /// Behaviour, errors and bytes on disk are the same; it exists for speed (PERFORMANCE.md,
    /// "Metadata"): converting a value larger than three words to an existential allocates a box
    /// at every call. An inlinable shell, compiled for the caller's type: only there is
    /// `Metadata?` free of a run-time type-metadata lookup.
    @inlinable
    public func set<Value: Encodable, Metadata: Codable & Sendable>(
        _ value: Value, forKey key: String, expiresAfter lifetime: TimeInterval? = nil, metadata: Metadata?,
        tags: [String] = []
    ) throws {
        try _scope.set(value, forKey: key, lifetime: lifetime, typed: metadata, tags: tags)
    }
}
