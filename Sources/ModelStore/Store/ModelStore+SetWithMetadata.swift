public import Foundation

extension ModelStore {
    /// Stores `value` under `key` with `metadata` beside it, replacing what was there. It
    /// expires by the store's policy.
    ///
    /// ```swift
    /// struct HTTPInfo: Codable, Sendable { var etag: String; var lastModified: String? }
    /// try store.set(user, forKey: "u1", metadata: HTTPInfo(etag: "\"abc\""))
    /// ```
    ///
    /// The metadata is encoded with the store's codec and can be read without decoding the
    /// model (``metadata(_:forKey:)``), or replaced without rewriting it
    /// (``replaceMetadata(_:forKey:)``). Nil stores the record without metadata.
    ///
    /// - Throws: ``ModelStoreError/encodingFailed(key:type:message:)`` if the model or the
    ///   metadata does not encode (nothing is written); otherwise as ``set(_:forKey:)``.
    public func set<Value: Encodable>(
        _ value: Value, forKey key: String, metadata: (any Codable & Sendable)?
    ) throws {
        try store(value, forKey: key, lifetime: nil, metadata: metadata)
    }

    /// Stores `value` under `key` with `metadata` beside it and a lifetime of its own, which
    /// wins over the store's policy.
    ///
    /// ```swift
    /// try store.set(user, forKey: "u1", expiresAfter: 60, metadata: info)
    /// ```
    ///
    /// - Throws: ``ModelStoreError/invalidPolicy(reason:)`` for a lifetime that is not positive
    ///   and finite; otherwise as ``set(_:forKey:metadata:)-5j4wr``.
    public func set<Value: Encodable>(
        _ value: Value, forKey key: String, expiresAfter lifetime: TimeInterval, metadata: (any Codable & Sendable)?
    ) throws {
        try UpdatePolicy.validate(lifetime: lifetime, what: "record lifetime")
        try store(value, forKey: key, lifetime: lifetime, metadata: metadata)
    }
}

extension ModelStore.WriteBatch {
    /// Adds storing `value` under `key` with `metadata` beside it, expiring by the store's
    /// policy.
    ///
    /// - Throws: As ``set(_:forKey:)``, and ``ModelStoreError/encodingFailed(key:type:message:)``
    ///   if the metadata does not encode.
    public func set<Value: Encodable>(
        _ value: Value, forKey key: String, metadata: (any Codable & Sendable)?
    ) throws {
        try add(value, forKey: key, lifetime: nil, metadata: metadata)
    }

    /// Adds storing `value` under `key` with `metadata` beside it and a lifetime of its own.
    ///
    /// - Throws: As ``set(_:forKey:expiresAfter:)`` and ``set(_:forKey:metadata:)-152lu``.
    public func set<Value: Encodable>(
        _ value: Value, forKey key: String, expiresAfter lifetime: TimeInterval, metadata: (any Codable & Sendable)?
    ) throws {
        try UpdatePolicy.validate(lifetime: lifetime, what: "record lifetime")
        try add(value, forKey: key, lifetime: lifetime, metadata: metadata)
    }
}

extension ModelStore.WriteBatch {
    /// Adds storing `value` under `key` in the collection `collection`, with `metadata` beside
    /// it. The record expires by the store's policy (a batch knows the collection by name only).
    ///
    /// ```swift
    /// try store.write { batch in
    ///     try batch.set(user, forKey: "42", in: "users", metadata: HTTPInfo(etag: "\"abc\""))
    /// }
    /// ```
    ///
    /// - Throws: As ``set(_:forKey:in:)-(_,_,String)`` and ``set(_:forKey:metadata:)-152lu``.
    public func set<Value: Encodable>(
        _ value: Value, forKey key: String, in collection: String, metadata: (any Codable & Sendable)?
    ) throws {
        try add(value, forKey: key, lifetime: nil, metadata: metadata, space: KeySpace(collection: collection))
    }

    /// Adds storing `value` under `key` in `collection` with `metadata` beside it, with the
    /// collection's policy stamped on the record.
    ///
    /// - Throws: As ``set(_:forKey:in:)-(_,_,ModelStore.Collection)`` and ``set(_:forKey:metadata:)-152lu``.
    public func set<Value: Encodable>(
        _ value: Value, forKey key: String, in collection: ModelStore.Collection, metadata: (any Codable & Sendable)?
    ) throws {
        let target = try collection.checked
        try add(value, forKey: key, lifetime: target.lifetime, metadata: metadata, space: target.space)
    }
}
