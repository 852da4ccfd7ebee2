public import Foundation

// The metadata setters again, for metadata of a type known where they are called (the usual
// case: `metadata: HTTPInfo(...)`, or an `HTTPInfo?` that may be nil: no metadata, as before).
// The compiler picks these over the `any Codable & Sendable` ones for such an argument, and a
// literal `nil` still goes to those. They exist for speed: converting a value larger than three
// words (an ETag and a date are two Strings) to `any Codable & Sendable` allocates a box on the
// heap at every call, which was about a tenth of what small metadata added to a put. Behaviour,
// errors and bytes on disk are the same.
//
// Each is an inlinable shell, compiled in the caller's module for the caller's type: only there
// is `Metadata?` free. Unspecialised, holding one looked up `Optional<Metadata>`'s type metadata
// on every call (measured: about 250 instructions), so the shell unwraps it and calls either the
// setter without metadata or an internal one that takes the metadata itself.

extension ModelStore {
    /// Stores `value` under `key` with `metadata` beside it, replacing what was there; as
    /// ``set(_:forKey:metadata:)-5j4wr``, for metadata of a type known at the call, which is
    /// passed without an existential box.
    ///
    /// - Throws: As ``set(_:forKey:metadata:)-5j4wr``.
    @inlinable
    public func set<Value: Encodable, Metadata: Codable & Sendable>(
        _ value: Value, forKey key: String, metadata: Metadata?
    ) throws {
        guard let metadata else { return try set(value, forKey: key) }
        try storeTyped(value, forKey: key, lifetime: nil, metadata: metadata)
    }

    /// Stores `value` under `key` with `metadata` beside it and a lifetime of its own; as
    /// ``set(_:forKey:expiresAfter:metadata:)-44ybp``, for metadata of a type known at the call.
    ///
    /// - Throws: As ``set(_:forKey:expiresAfter:metadata:)-44ybp``.
    @inlinable
    public func set<Value: Encodable, Metadata: Codable & Sendable>(
        _ value: Value, forKey key: String, expiresAfter lifetime: TimeInterval, metadata: Metadata?
    ) throws {
        guard let metadata else { return try set(value, forKey: key, expiresAfter: lifetime) }
        try storeTyped(value, forKey: key, lifetime: lifetime, metadata: metadata)
    }

    /// The typed setters' write, with a lifetime of the record's own if not nil.
    @usableFromInline
    func storeTyped<Value: Encodable, Metadata: Encodable>(
        _ value: Value, forKey key: String, lifetime: TimeInterval?, metadata: Metadata
    ) throws {
        if let lifetime { try UpdatePolicy.validate(lifetime: lifetime, what: "record lifetime") }
        try store(value, forKey: key, lifetime: lifetime, with: metadata, space: .default)
    }
}

extension ModelStore.Collection {
    /// Stores `value` under `key` in this collection with `metadata` beside it; as
    /// ``set(_:forKey:metadata:)-8a54p``, for metadata of a type known at the call, which is
    /// passed without an existential box.
    ///
    /// - Throws: As ``set(_:forKey:metadata:)-8a54p``.
    @inlinable
    public func set<Value: Encodable, Metadata: Codable & Sendable>(
        _ value: Value, forKey key: String, metadata: Metadata?
    ) throws {
        guard let metadata else { return try set(value, forKey: key) }
        try storeTyped(value, forKey: key, expiresAfter: nil, metadata: metadata)
    }

    /// Stores `value` under `key` in this collection with `metadata` beside it and a lifetime of
    /// its own; as ``set(_:forKey:expiresAfter:metadata:)-7vbfl``, for metadata of a type known
    /// at the call.
    ///
    /// - Throws: As ``set(_:forKey:expiresAfter:metadata:)-7vbfl``.
    @inlinable
    public func set<Value: Encodable, Metadata: Codable & Sendable>(
        _ value: Value, forKey key: String, expiresAfter lifetime: TimeInterval, metadata: Metadata?
    ) throws {
        guard let metadata else { return try set(value, forKey: key, expiresAfter: lifetime) }
        try storeTyped(value, forKey: key, expiresAfter: lifetime, metadata: metadata)
    }

    /// The typed setters' write: with a lifetime of the record's own if not nil, else the
    /// collection's policy (if it has one).
    @usableFromInline
    func storeTyped<Value: Encodable, Metadata: Encodable>(
        _ value: Value, forKey key: String, expiresAfter ownLifetime: TimeInterval?, metadata: Metadata
    ) throws {
        if let ownLifetime { try UpdatePolicy.validate(lifetime: ownLifetime, what: "record lifetime") }
        let target = try checked
        try store.store(
            value, forKey: key, lifetime: ownLifetime ?? target.lifetime, with: metadata, space: target.space)
    }
}

extension ModelStore.WriteBatch {
    /// Adds storing `value` under `key` with `metadata` beside it; as
    /// ``set(_:forKey:metadata:)-152lu``, for metadata of a type known at the call, which is
    /// passed without an existential box.
    ///
    /// - Throws: As ``set(_:forKey:metadata:)-152lu``.
    @inlinable
    public func set<Value: Encodable, Metadata: Codable & Sendable>(
        _ value: Value, forKey key: String, metadata: Metadata?
    ) throws {
        guard let metadata else { return try set(value, forKey: key) }
        try addTyped(value, forKey: key, expiresAfter: nil, metadata: metadata, collection: nil)
    }

    /// Adds storing `value` under `key` with `metadata` beside it and a lifetime of its own; as
    /// ``set(_:forKey:expiresAfter:metadata:)-5ueq``, for metadata of a type known at the call.
    ///
    /// - Throws: As ``set(_:forKey:expiresAfter:metadata:)-5ueq``.
    @inlinable
    public func set<Value: Encodable, Metadata: Codable & Sendable>(
        _ value: Value, forKey key: String, expiresAfter lifetime: TimeInterval, metadata: Metadata?
    ) throws {
        guard let metadata else { return try set(value, forKey: key, expiresAfter: lifetime) }
        try addTyped(value, forKey: key, expiresAfter: lifetime, metadata: metadata, collection: nil)
    }

    /// Adds storing `value` under `key` in the collection `collection` with `metadata` beside
    /// it; as ``set(_:forKey:in:metadata:)-1pdt``, for metadata of a type known at the call.
    ///
    /// - Throws: As ``set(_:forKey:in:metadata:)-1pdt``.
    @inlinable
    public func set<Value: Encodable, Metadata: Codable & Sendable>(
        _ value: Value, forKey key: String, in collection: String, metadata: Metadata?
    ) throws {
        guard let metadata else { return try set(value, forKey: key, in: collection) }
        try addTyped(value, forKey: key, expiresAfter: nil, metadata: metadata, collection: collection)
    }

    /// Adds storing `value` under `key` in `collection` with `metadata` beside it, with the
    /// collection's policy stamped on the record; as ``set(_:forKey:in:metadata:)-9jt6u``, for
    /// metadata of a type known at the call.
    ///
    /// - Throws: As ``set(_:forKey:in:metadata:)-9jt6u``.
    @inlinable
    public func set<Value: Encodable, Metadata: Codable & Sendable>(
        _ value: Value, forKey key: String, in collection: ModelStore.Collection, metadata: Metadata?
    ) throws {
        guard let metadata else { return try set(value, forKey: key, in: collection) }
        try addTyped(value, forKey: key, in: collection, metadata: metadata)
    }

    /// The typed setters' addition to the default collection or the one named `collection`, with
    /// a lifetime of the record's own if not nil.
    @usableFromInline
    func addTyped<Value: Encodable, Metadata: Encodable>(
        _ value: Value, forKey key: String, expiresAfter lifetime: TimeInterval?, metadata: Metadata,
        collection: String?
    ) throws {
        if let lifetime { try UpdatePolicy.validate(lifetime: lifetime, what: "record lifetime") }
        let space = try collection.map { try KeySpace(collection: $0) } ?? .default
        try add(value, forKey: key, lifetime: lifetime, with: metadata, space: space)
    }

    /// The typed setters' addition to `collection`, with its policy stamped on the record.
    @usableFromInline
    func addTyped<Value: Encodable, Metadata: Encodable>(
        _ value: Value, forKey key: String, in collection: ModelStore.Collection, metadata: Metadata
    ) throws {
        let target = try collection.checked
        try add(value, forKey: key, lifetime: target.lifetime, with: metadata, space: target.space)
    }
}
