public import Foundation

// The metadata setters again, for metadata of a type known where they are called (the usual
// case: `metadata: HTTPInfo(...)`). The compiler picks these over the `any Codable & Sendable`
// ones for such an argument, and `nil` still goes to those. They exist for speed: converting a
// value larger than three words (an ETag and a date are two Strings) to `any Codable & Sendable`
// allocates a box on the heap at every call, which was about a tenth of what small metadata
// added to a put. Behaviour, errors and bytes on disk are the same.

extension ModelStore {
    /// Stores `value` under `key` with `metadata` beside it, replacing what was there; as
    /// ``set(_:forKey:metadata:)-5j4wr``, for metadata of a type known
    /// at the call, which is passed without an existential box.
    ///
    /// - Throws: As ``set(_:forKey:metadata:)-5j4wr``.
    public func set<Value: Encodable, Metadata: Codable & Sendable>(
        _ value: Value, forKey key: String, metadata: Metadata
    ) throws {
        try store(value, forKey: key, lifetime: nil, with: metadata, space: .default)
    }

    /// Stores `value` under `key` with `metadata` beside it and a lifetime of its own; as
    /// ``set(_:forKey:expiresAfter:metadata:)-44ybp``, for metadata
    /// of a type known at the call.
    ///
    /// - Throws: As ``set(_:forKey:expiresAfter:metadata:)-44ybp``.
    public func set<Value: Encodable, Metadata: Codable & Sendable>(
        _ value: Value, forKey key: String, expiresAfter lifetime: TimeInterval, metadata: Metadata
    ) throws {
        try UpdatePolicy.validate(lifetime: lifetime, what: "record lifetime")
        try store(value, forKey: key, lifetime: lifetime, with: metadata, space: .default)
    }
}

extension ModelStore.Collection {
    /// Stores `value` under `key` in this collection with `metadata` beside it; as
    /// ``set(_:forKey:metadata:)-8a54p``, for metadata of a type known
    /// at the call, which is passed without an existential box.
    ///
    /// - Throws: As ``set(_:forKey:metadata:)-8a54p``.
    public func set<Value: Encodable, Metadata: Codable & Sendable>(
        _ value: Value, forKey key: String, metadata: Metadata
    ) throws {
        try store.store(value, forKey: key, lifetime: lifetime, with: metadata, space: space)
    }

    /// Stores `value` under `key` in this collection with `metadata` beside it and a lifetime of
    /// its own; as ``set(_:forKey:expiresAfter:metadata:)-7vbfl``,
    /// for metadata of a type known at the call.
    ///
    /// - Throws: As ``set(_:forKey:expiresAfter:metadata:)-7vbfl``.
    public func set<Value: Encodable, Metadata: Codable & Sendable>(
        _ value: Value, forKey key: String, expiresAfter lifetime: TimeInterval, metadata: Metadata
    ) throws {
        try UpdatePolicy.validate(lifetime: lifetime, what: "record lifetime")
        try store.store(value, forKey: key, lifetime: lifetime, with: metadata, space: space)
    }
}

extension ModelStore.WriteBatch {
    /// Adds storing `value` under `key` with `metadata` beside it; as
    /// ``set(_:forKey:metadata:)-152lu``, for metadata of a type known
    /// at the call, which is passed without an existential box.
    ///
    /// - Throws: As ``set(_:forKey:metadata:)-152lu``.
    public func set<Value: Encodable, Metadata: Codable & Sendable>(
        _ value: Value, forKey key: String, metadata: Metadata
    ) throws {
        try add(value, forKey: key, lifetime: nil, with: metadata, space: .default)
    }

    /// Adds storing `value` under `key` with `metadata` beside it and a lifetime of its own; as
    /// ``set(_:forKey:expiresAfter:metadata:)-5ueq``, for metadata
    /// of a type known at the call.
    ///
    /// - Throws: As ``set(_:forKey:expiresAfter:metadata:)-5ueq``.
    public func set<Value: Encodable, Metadata: Codable & Sendable>(
        _ value: Value, forKey key: String, expiresAfter lifetime: TimeInterval, metadata: Metadata
    ) throws {
        try UpdatePolicy.validate(lifetime: lifetime, what: "record lifetime")
        try add(value, forKey: key, lifetime: lifetime, with: metadata, space: .default)
    }

    /// Adds storing `value` under `key` in the collection `collection` with `metadata` beside
    /// it; as ``set(_:forKey:in:metadata:)-1pdt``, for
    /// metadata of a type known at the call.
    ///
    /// - Throws: As ``set(_:forKey:in:metadata:)-1pdt``.
    public func set<Value: Encodable, Metadata: Codable & Sendable>(
        _ value: Value, forKey key: String, in collection: String, metadata: Metadata
    ) throws {
        try add(value, forKey: key, lifetime: nil, with: metadata, space: KeySpace(collection: collection))
    }

    /// Adds storing `value` under `key` in `collection` with `metadata` beside it, with the
    /// collection's policy stamped on the record; as
    /// ``set(_:forKey:in:metadata:)-9jt6u``, for
    /// metadata of a type known at the call.
    ///
    /// - Throws: As
    ///   ``set(_:forKey:in:metadata:)-9jt6u``.
    public func set<Value: Encodable, Metadata: Codable & Sendable>(
        _ value: Value, forKey key: String, in collection: ModelStore.Collection, metadata: Metadata
    ) throws {
        try add(value, forKey: key, lifetime: collection.lifetime, with: metadata, space: collection.space)
    }
}
