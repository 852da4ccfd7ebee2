public import Foundation

/// What a record's envelope says, for tools that show records without their model type (the
/// `modelstore` command-line tool). Not part of the stable API: its shape follows the format.
@_spi(Inspection)
public struct RecordInspection: Sendable {
    /// How the record's checksum compares with its bytes.
    public enum Checksum: String, Sendable {
        /// A format-1 record: it has no checksum.
        case absent
        /// The checksum matches the key and the value (for a format-2 record, the value from
        /// byte 7: its version, flags and codec bytes are not covered).
        case valid
        /// The checksum does not match: the bytes were damaged or copied from another key.
        case mismatch
    }

    /// The envelope's format version (1, 2 or 3; version 3's byte on disk is 0x33).
    public let formatVersion: Int
    /// The envelope's flags byte.
    public let flags: UInt8
    /// The codec that encoded the model.
    public let codec: ModelCodecIdentifier
    /// The checksum's verdict.
    public let checksum: Checksum
    /// The codec that encoded the metadata, nil when the record has none.
    public let metadataCodec: ModelCodecIdentifier?
    /// The metadata's encoded bytes, nil when the record has none.
    public let metadata: Data?
    /// The tags section's tags.
    public let tags: [String]
    /// For a sealed (encrypted) record, the identifier of the key that sealed it (8 hex digits);
    /// nil for a plain record.
    public let sealedBy: String?
    /// Whether the model and metadata are shown: false for a sealed record the store has no key
    /// for (``metadata`` is then nil, whatever the record holds).
    public let isReadable: Bool
}

extension ModelStore {
    /// The envelope of the record stored for `key`, read without decoding the model or the
    /// metadata and without judging expiry; nil if there is no record.
    ///
    /// - Throws: ``ModelStoreError/decodingFailed(key:type:message:)`` if the envelope does not
    ///   parse (damaged, or from an unknown format version).
    @_spi(Inspection)
    public func inspectRecord(forKey key: String) throws -> RecordInspection? {
        try scope.inspectRecord(forKey: key)
    }
}

extension Scope {
    /// The envelope of the record stored for `key`, unverified: see ``ModelStore/inspectRecord(forKey:)``.
    func inspectRecord(forKey key: String) throws -> RecordInspection? {
        try withStoredRecord(key, through: snapshot) { keyBytes, record -> RecordInspection? in
            guard let record else { return nil }
            guard let header = RecordHeader(parsing: record) else {
                throw ModelStoreError.decodingFailed(
                    key: key, type: "a ModelStore record",
                    message: "the record's header is damaged or from an unknown format version")
            }
            let checksum: RecordInspection.Checksum =
                header.storedChecksum == nil
                ? .absent : header.checksumMatches(value: record, key: keyBytes) ? .valid : .mismatch
            let flags = record[1]
            let sealedBy = header.isSealed
                ? RecordCipher.describe(
                    UInt32(littleEndian: record.loadUnaligned(fromByteOffset: header.sealedAt, as: UInt32.self)))
                : nil
            func inspection(_ record: UnsafeRawBufferPointer, _ header: RecordHeader, readable: Bool) -> RecordInspection {
                RecordInspection(
                    formatVersion: header.formatNumber, flags: flags, codec: header.codec, checksum: checksum,
                    metadataCodec: header.metadataCodec,
                    metadata: header.metadataCodec.map { _ in Data(record[header.metadataRange]) },
                    tags: TagIndex.tags(of: record, header: header), sealedBy: sealedBy, isReadable: readable)
            }
            // A sealed record is shown opened when the store has its key and it verifies; else
            // its envelope only, never its ciphertext.
            guard header.isSealed, reader.cipher != nil, checksum == .valid else {
                return inspection(record, header, readable: !header.isSealed)
            }
            return try reader.opened(record, header: header, key: key, keyBytes: keyBytes) {
                inspection($0, $1, readable: true)
            }
        }
    }
}

extension ModelStore.Collection {
    /// The envelope of this collection's record for `key`, as ``ModelStore/inspectRecord(forKey:)``.
    ///
    /// - Throws: As ``ModelStore/inspectRecord(forKey:)``, and ``ModelStoreError/invalidName(name:reason:)``
    ///   for an invalid collection name.
    @_spi(Inspection)
    public func inspectRecord(forKey key: String) throws -> RecordInspection? {
        try scope.inspectRecord(forKey: key)
    }
}
