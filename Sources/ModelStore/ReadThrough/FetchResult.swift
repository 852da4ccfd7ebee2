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
public enum FetchResult<Value> {
    /// A fresh model, stored with its own lifetime (nil: ``ReadThroughOptions/lifetime``, else the
    /// store's policy) and metadata kept beside it (for example the validators of an HTTP response).
    case value(Value, expiresAfter: TimeInterval? = nil, metadata: (any Codable & Sendable)? = nil)

    /// The stored model is still current (HTTP 304): it is kept as it is, with a new lifetime
    /// (nil: ``ReadThroughOptions/lifetime``, else the store's policy) counted from now.
    /// With no stored record to keep, the call throws ``ModelStoreError/notModifiedWithoutRecord(key:)``.
    case notModified(expiresAfter: TimeInterval? = nil)

    /// The source has no such model: the stored record is removed, the call returns nil, and
    /// with ``ReadThroughOptions/notFoundLifetime`` the answer is remembered for that long.
    case notFound
}

extension FetchResult: Sendable where Value: Sendable {}
