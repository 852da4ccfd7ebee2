public import Foundation

// The setters again, for metadata of a type known where they are called (the usual case:
// `metadata: HTTPInfo(...)`, or an `HTTPInfo?` that may be nil: no metadata). The compiler picks
// these over the `any Codable & Sendable` ones for such an argument; a literal `nil` still goes
// to those. They exist for speed (PERFORMANCE.md, "Metadata"): converting a value larger than
// three words to an existential allocates a box at every call. Behaviour, errors and bytes on
// disk are the same.
//
// Each is an inlinable shell, compiled in the caller's module for the caller's type: only there
// is `Metadata?` free of a run-time type-metadata lookup.

extension ModelStore.WriteBatch {
    /// ``ModelStore/WriteBatch/set(_:forKey:in:expiresAfter:metadata:tags:)-5xdgl`` for metadata of a
    /// type known at the call.
    @inlinable
    public func set<Value: Encodable, Metadata: Codable & Sendable>(
        _ value: Value, forKey key: String, in collection: ModelStore.Collection? = nil,
        expiresAfter lifetime: TimeInterval? = nil, metadata: Metadata?, tags: [String] = []
    ) throws {
        try add(value, forKey: key, to: collection?.scope ?? store.scope, lifetime: lifetime, typed: metadata, tags: tags)
    }

    /// ``ModelStore/WriteBatch/set(_:forKey:in:expiresAfter:metadata:tags:)-9u3c6`` for metadata of a type
    /// known at the call.
    @inlinable
    public func set<Value: Encodable, Metadata: Codable & Sendable>(
        _ value: Value, forKey key: String, in collection: String, expiresAfter lifetime: TimeInterval? = nil,
        metadata: Metadata?, tags: [String] = []
    ) throws {
        try add(value, forKey: key, to: scope(named: collection), lifetime: lifetime, typed: metadata, tags: tags)
    }
}

extension Scope {
    /// Unwraps typed metadata in the caller's module, then stores with it or with none.
    @inlinable
    func set<Value: Encodable, Metadata: Codable & Sendable>(
        _ value: Value, forKey key: String, lifetime: TimeInterval?, typed metadata: Metadata?, tags: [String]
    ) throws {
        guard let metadata else { return try set(value, forKey: key, lifetime: lifetime, with: NoMetadata(), tags: tags) }
        try set(value, forKey: key, lifetime: lifetime, with: metadata, tags: tags)
    }
}
