/// A record's metadata as stored: its codec and encoded bytes, decoded only when asked for.
///
/// An ``ModelStore/Entry`` keeps one so that ``ModelStore/Entry/metadata(_:)`` can decode the
/// metadata with a type the read did not know. It also keeps the store's codec, so metadata a
/// custom codec wrote decodes with that codec; built-in codecs need nothing.
struct StoredMetadata: Sendable, Hashable {
    let codec: ModelCodecIdentifier
    let bytes: [UInt8]
    /// The reading store's codec (compared by identifier only, as records are).
    let storeCodec: any ModelCodec

    init(codec: ModelCodecIdentifier, bytes: [UInt8], storeCodec: any ModelCodec) {
        self.codec = codec
        self.bytes = bytes
        self.storeCodec = storeCodec
    }

    /// The metadata section of `record`, or nil if it has none.
    init?(record: UnsafeRawBufferPointer, header: RecordHeader, storeCodec: any ModelCodec) {
        guard let codec = header.metadataCodec else { return nil }
        self.init(codec: codec, bytes: Array(record[header.metadataRange]), storeCodec: storeCodec)
    }

    static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.codec == rhs.codec && lhs.bytes == rhs.bytes
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(codec)
        hasher.combine(bytes)
    }

    /// Decodes the metadata as `type`; `key` names the record in errors.
    func decode<Metadata: Decodable>(_ type: Metadata.Type, key: String) throws -> Metadata {
        try bytes.withUnsafeBytes { bytes in
            try Self.decode(type, key: key, codec: codec, bytes: bytes, storeCodec: storeCodec)
        }
    }

    /// Decodes metadata bytes with the codec that wrote them: the store's own, or a built-in one.
    static func decode<Metadata: Decodable>(
        _ type: Metadata.Type, key: String, codec identifier: ModelCodecIdentifier,
        bytes: UnsafeRawBufferPointer, storeCodec: any ModelCodec
    ) throws(ModelStoreError) -> Metadata {
        // The store's codec is opened, not copied into a new existential: a copy retains and
        // releases it on every call.
        if identifier == storeCodec.identifier {
            return try decode(type, key: key, with: storeCodec, bytes: bytes)
        }
        guard let builtIn = BuiltInCodecs.codec(for: identifier) else {
            throw .decodingFailed(
                key: key, type: String(describing: type),
                message: "the record's metadata was written by codec \(identifier), "
                    + "which this store is not configured with")
        }
        return try decode(type, key: key, with: builtIn, bytes: bytes)
    }

    private static func decode<Metadata: Decodable, Codec: ModelCodec>(
        _ type: Metadata.Type, key: String, with codec: Codec, bytes: UnsafeRawBufferPointer
    ) throws(ModelStoreError) -> Metadata {
        do {
            return try codec.decode(type, fromBytes: bytes)
        } catch {
            throw .decodingFailed(
                key: key, type: String(describing: type),
                message: "the record's metadata does not decode: \(describeCodingError(error))")
        }
    }
}
