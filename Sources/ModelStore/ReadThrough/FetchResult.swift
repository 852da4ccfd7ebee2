public import Foundation

/// What a read-through fetch found at its source: see ``ModelStore/object(_:forKey:options:fetch:)``.
///
/// ```swift
/// switch try await api.user(42, ifNoneMatch: etag) {
/// case let .ok(user, etag, maxAge): return .value(user, expiresAfter: maxAge, metadata: HTTPInfo(etag: etag))
/// case let .notModified(maxAge):    return .notModified(expiresAfter: maxAge)
/// case .notFound:                   return .notFound
/// }
/// ```
///
/// Tags: a `.value` or `.notModified` keeps the tags the record had; ``value(_:expiresAfter:metadata:tags:)``
/// gives the fetched record tags of its own (`tags: []`: none).
public enum FetchResult<Value> {
    /// A fresh model, stored with its own lifetime (nil: ``ReadThroughOptions/lifetime``, else the
    /// store's policy) and metadata kept beside it (for example the validators of an HTTP response).
    ///
    /// The new record keeps the tags of the record it replaces (see
    /// ``ModelStore/set(_:forKey:expiresAfter:metadata:tags:)-2n6sg``), so a later
    /// ``ModelStore/removeObjects(taggedWith:)`` still finds it. To give the record tags of its
    /// own, or none, use ``value(_:expiresAfter:metadata:tags:)``.
    case value(Value, expiresAfter: TimeInterval? = nil, metadata: (any Codable & Sendable)? = nil)

    /// The stored model is still current (HTTP 304): it is kept as it is (metadata and tags
    /// included), with a new lifetime (nil: ``ReadThroughOptions/lifetime``, else the store's
    /// policy) counted from now.
    /// With no stored record to keep, the call throws ``ModelStoreError/notModifiedWithoutRecord(key:)``.
    case notModified(expiresAfter: TimeInterval? = nil)

    /// The source has no such model: the stored record is removed, the call returns nil, and
    /// with ``ReadThroughOptions/notFoundLifetime`` the answer is remembered for that long.
    case notFound
}

extension FetchResult: Sendable where Value: Sendable {}
