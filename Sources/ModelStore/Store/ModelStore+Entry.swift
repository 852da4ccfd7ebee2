public import Foundation

extension ModelStore {
    /// A stored model with the metadata ModelStore keeps beside it.
    ///
    /// ```swift
    /// if let entry = try store.entry(User.self, forKey: "user") {
    ///     print(entry.value.userName, "stored", entry.storedAt, "expires", entry.expiresAt ?? "never")
    /// }
    /// ```
    public struct Entry<Value> {
        /// The key the model is stored under.
        public let key: String
        /// The decoded model.
        public let value: Value
        /// When the model was stored, by the store's clock.
        public let storedAt: Date
        /// When the model expires: its own deadline if it was stored with one, otherwise
        /// `storedAt` plus the store's policy lifetime; nil if it never expires.
        public let expiresAt: Date?
        /// The size of the stored record in bytes (header plus encoded model).
        public let byteCount: Int
        /// Whether the record had expired when it was read. Only a read that asks for
        /// expired records (``ModelStore/entry(_:forKey:includingExpired:)``) returns one.
        public let isExpired: Bool
        /// The tags the record was stored with (see ``ModelStore/set(_:forKey:expiresAfter:metadata:tags:)-2n6sg``
        /// and ``FetchResult/value(_:expiresAfter:metadata:tags:)``), in the order they were given,
        /// repeats removed; empty for a record stored without tags.
        public let tags: [String]
        /// The record's metadata, still encoded: decoded by ``metadata(_:)`` on demand, so a
        /// read that never asks pays only for copying a few bytes.
        let storedMetadata: StoredMetadata?
    }
}

extension ModelStore.Entry: Sendable where Value: Sendable {}
extension ModelStore.Entry: Equatable where Value: Equatable {}
extension ModelStore.Entry: Hashable where Value: Hashable {}

extension ModelStore.Entry {
    /// Decodes the metadata stored beside the model, or returns nil if the record was stored
    /// without metadata.
    ///
    /// ```swift
    /// if let entry = try store.entry(User.self, forKey: "u1"),
    ///    let info = try entry.metadata(HTTPInfo.self) {
    ///     request.setValue(info.etag, forHTTPHeaderField: "If-None-Match")
    /// }
    /// ```
    ///
    /// The entry keeps the metadata's encoded bytes, so this is decoded only when asked for,
    /// with the codec that wrote it.
    ///
    /// - Throws: ``ModelStoreError/decodingFailed(key:type:message:)`` naming the key if the
    ///   metadata does not decode as `type`.
    public func metadata<Metadata: Decodable>(_ type: Metadata.Type) throws -> Metadata? {
        try storedMetadata?.decode(type, key: key)
    }
}
