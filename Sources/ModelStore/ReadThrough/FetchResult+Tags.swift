public import Foundation

extension FetchResult {
    /// A fresh model with the tags its record is stored with, replacing the ones it had:
    /// ``ModelStore/removeObjects(taggedWith:)`` then finds it by these.
    ///
    /// ```swift
    /// case let .ok(user, etag, maxAge):
    ///     return .value(user, expiresAfter: maxAge, metadata: HTTPInfo(etag: etag), tags: ["team:\(user.team)"])
    /// ```
    ///
    /// How the fetched record's tags are expressed:
    /// - `tags: ["a", "b"]`: exactly these (validated as by ``ModelStore/set(_:forKey:expiresAfter:metadata:tags:)-2n6sg``:
    ///   1 to 1,024 UTF-8 bytes each, repeats stored once, compared by bytes);
    /// - `tags: []`: none; the record is no longer found by any tag;
    /// - `tags: nil`, or ``value(_:expiresAfter:metadata:)`` without `tags`: the tags of the record
    ///   it replaces, as stored when the result is written (those of the entry the fetch was
    ///   given if the record has been removed since).
    ///
    /// The record and its tag-index entries are written in one atomic write, as by a tagged `set`.
    ///
    /// This is a ``value(_:expiresAfter:metadata:)`` case: the tags travel in its `metadata`,
    /// beside the metadata given here. Code that takes such a result apart and builds it again
    /// keeps them; the `metadata` it sees is then not the one given here.
    ///
    /// - Parameters:
    ///   - value: The fresh model.
    ///   - lifetime: Its lifetime in seconds (nil: ``ReadThroughOptions/lifetime``, else the policy).
    ///   - metadata: Metadata kept beside it; nil: none.
    ///   - tags: The record's tags; `[]`: none; nil: keep the tags it had.
    /// - Returns: A result that stores `value` with `tags`. An invalid tag is reported by the
    ///   read-through call as ``ModelStoreError/invalidTag(tag:reason:)``, and nothing is stored.
    public static func value(
        _ value: Value, expiresAfter lifetime: TimeInterval? = nil, metadata: (any Codable & Sendable)? = nil,
        tags: [String]?
    ) -> FetchResult {
        guard let tags else { return .value(value, expiresAfter: lifetime, metadata: metadata) }
        // A result taken apart and built again with new tags: its metadata, not the old carrier.
        let metadata = (metadata as? FetchedTags)?.metadata ?? metadata
        return .value(value, expiresAfter: lifetime, metadata: FetchedTags(metadata: metadata, tags: tags))
    }
}

/// The tags of a ``FetchResult/value(_:expiresAfter:metadata:tags:)`` result, carried in its
/// `metadata` with the metadata given, so that the enum's cases (and every `switch` over them
/// that callers wrote) stay as they were. The read-through takes it apart before storing.
///
/// Encodes as the metadata it carries (or nil): stored as metadata by code that took a result
/// apart, it stores that metadata and nothing of the tags. It does not decode: no record
/// holds one.
struct FetchedTags: Codable, Sendable {
    let metadata: (any Codable & Sendable)?
    let tags: [String]

    init(metadata: (any Codable & Sendable)?, tags: [String]) {
        self.metadata = metadata
        self.tags = tags
    }

    /// The metadata to store and the tags a result's `metadata` asks for (nil: keep).
    static func split(_ metadata: (any Codable & Sendable)?) -> (metadata: (any Codable & Sendable)?, tags: [String]?) {
        guard let carrier = metadata as? FetchedTags else { return (metadata, nil) }
        return (carrier.metadata, carrier.tags)
    }

    func encode(to encoder: any Encoder) throws {
        if let metadata {
            try metadata.encode(to: encoder)
        } else {
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        }
    }

    init(from decoder: any Decoder) throws {
        throw DecodingError.dataCorrupted(
            DecodingError.Context(
                codingPath: decoder.codingPath,
                debugDescription: "the tags of a read-through result are never stored as metadata"))
    }
}
