public import Foundation

extension ModelStore.Collection {
    /// Stores `value` under `key` in this collection with `metadata` beside it. It expires by
    /// the collection's policy if it has one, else by the store's.
    ///
    /// ```swift
    /// try users.set(user, forKey: "42", metadata: HTTPInfo(etag: "\"abc\""))
    /// ```
    ///
    /// - Throws: As ``ModelStore/set(_:forKey:metadata:)-5j4wr``; ``ModelStoreError/invalidName(name:reason:)``.
    public func set<Value: Encodable>(
        _ value: Value, forKey key: String, metadata: (any Codable & Sendable)?
    ) throws {
        let target = try checked
        try store.store(value, forKey: key, lifetime: target.lifetime, metadata: metadata, space: target.space)
    }

    /// Stores `value` under `key` in this collection with `metadata` beside it and a lifetime
    /// of its own, which wins over the collection's and the store's policy.
    ///
    /// - Throws: As ``ModelStore/set(_:forKey:expiresAfter:metadata:)-44ybp``.
    public func set<Value: Encodable>(
        _ value: Value, forKey key: String, expiresAfter lifetime: TimeInterval, metadata: (any Codable & Sendable)?
    ) throws {
        try UpdatePolicy.validate(lifetime: lifetime, what: "record lifetime")
        try store.store(value, forKey: key, lifetime: lifetime, metadata: metadata, space: space)
    }

    /// The metadata stored beside this collection's model for `key`, without decoding the
    /// model; nil if there is no record, it has expired, or it has no metadata.
    ///
    /// - Throws: As ``ModelStore/metadata(_:forKey:)``.
    @inlinable
    public func metadata<Metadata: Decodable>(_ type: Metadata.Type, forKey key: String) throws -> Metadata? {
        // Compiled for the caller's type, as ModelStore/metadata(_:forKey:) is, and for the same reason.
        try withUnsafeTemporaryAllocation(of: Metadata.self, capacity: 1) { buffer in
            let slot = buffer.baseAddress.unsafelyUnwrapped
            return try decodeMetadata(type, forKey: key, into: slot) ? slot.move() : nil
        }
    }

    /// ``metadata(_:forKey:)`` for its inlinable shell: see ModelStore's `decodeMetadata`.
    @usableFromInline
    func decodeMetadata<Metadata: Decodable>(
        _ type: Metadata.Type, forKey key: String, into slot: UnsafeMutablePointer<Metadata>
    ) throws -> Bool {
        try store.decodeMetadata(type, forKey: key, space: space, into: slot)
    }

    /// Replaces the metadata of this collection's record for `key`, leaving the model's bytes,
    /// `storedAt` and any deadline as they were; false if there is no live record.
    ///
    /// - Throws: As ``ModelStore/replaceMetadata(_:forKey:)``.
    @discardableResult
    public func replaceMetadata(_ metadata: any Codable & Sendable, forKey key: String) throws -> Bool {
        try store.replaceMetadata(metadata, forKey: key, space: space)
    }

    /// Restarts the lifetime of this collection's record for `key` without touching its
    /// model (a `304 Not Modified`); false if there is no live record.
    ///
    /// A record written with the collection's policy carries it as its own lifetime, so it
    /// restarts with the same length.
    ///
    /// - Throws: As ``ModelStore/refresh(forKey:expiresAfter:metadata:)``.
    @discardableResult
    public func refresh(
        forKey key: String, expiresAfter lifetime: TimeInterval? = nil, metadata: (any Codable & Sendable)? = nil
    ) throws -> Bool {
        try store.refresh(forKey: key, expiresAfter: lifetime, metadata: metadata, space: space)
    }
}
