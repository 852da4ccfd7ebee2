import Foundation

/// Turns a model, its lifetime, metadata and tags into the bytes of a record (the layout is at
/// the top of RecordEnvelope.swift): the one place a record's bytes are made.
///
/// It writes the version-3 envelope, the metadata and tags sections and the encoded model into a
/// buffer, compresses the model when the store asks for it, and seals the checksum over the
/// LevelDB key and every byte of the value, outside any lock. The buffer's contents are replaced
/// but its capacity kept: batches and imports reuse one buffer for all their records (LevelDB
/// copies each record into the batch), which saves an allocation per record.
struct RecordEncoder: Sendable {
    /// The codec new records are encoded with.
    let codec: any ModelCodec
    /// The largest record a write accepts (``ModelStore/maximumRecordLength`` outside tests).
    let recordLengthLimit: Int
    /// Compresses the model when the store's configuration asks for it; nil: never.
    let compressor: PayloadCompressor?
    /// Seals the model and metadata when the store's configuration encrypts; nil: never.
    let cipher: RecordCipher?

    /// Encodes a record stored at `storedAt` (seconds since the reference date) into `buffer`.
    ///
    /// - Parameters:
    ///   - lifetime: Seconds the record lives from `storedAt` (``RecordHeader/neverLifetime``:
    ///     never); nil: the reading store's policy decides.
    ///   - metadata: Metadata of its own type; ``NoMetadata`` for none.
    ///   - tags: Validated tags (see ``TagIndex/validated(_:)``), stored in the envelope.
    ///   - space: Where the key lives: the checksum covers the key as LevelDB stores it.
    ///   - indexValues: The model's values in its key space's indexes, stored in the record's
    ///     index values section (nil, or none computed: no section).
    /// - Throws: ``ModelStoreError/invalidKey(key:reason:)``,
    ///   ``ModelStoreError/encodingFailed(key:type:message:)`` naming the model or the metadata,
    ///   ``ModelStoreError/valueTooLarge(key:byteCount:)``.
    func encode<Value: Encodable, Metadata: Encodable>(
        _ value: Value, forKey key: String, storedAt: Double, lifetime: TimeInterval?, metadata: Metadata,
        tags: [String], space: KeySpace, indexValues: ComputedIndexValues? = nil, into buffer: inout [UInt8]
    ) throws {
        try ModelStore.validate(key: key)
        let header = RecordHeader(storedAt: storedAt, lifetime: lifetime, codec: codec.identifier)
        buffer.removeAll(keepingCapacity: true)
        // A metatype compare, not an optional: generic code that holds a `Metadata?` looks up
        // `Optional<Metadata>`'s type metadata at run time on every call.
        let hasMetadata = Metadata.self != NoMetadata.self
        let hasIndexValues = indexValues.map { !$0.byID.isEmpty } ?? false
        header.writeVersionThree(
            to: &buffer, hasMetadata: hasMetadata, hasTags: !tags.isEmpty, hasIndexValues: hasIndexValues)
        if hasIndexValues { IndexParts.appendSection(indexValues!, to: &buffer) }
        let payloadStart: Int
        if hasMetadata, tags.isEmpty {
            payloadStart = try appendMetadataAndModel(metadata, value, forKey: key, to: &buffer)
        } else {
            if hasMetadata {
                do {
                    try RecordHeader.appendMetadataSection(encoding: metadata, with: codec, to: &buffer)
                } catch {
                    throw Self.metadataEncodingFailed(error, key: key, type: type(of: metadata))
                }
            }
            if !tags.isEmpty { TagIndex.appendSection(tags, to: &buffer) }
            payloadStart = buffer.count
            do {
                try codec.encode(value, appendingTo: &buffer)
            } catch {
                throw ModelStoreError.encodingFailed(
                    key: key, type: String(describing: Value.self), message: describeCodingError(error))
            }
        }
        // Checked before compression: the limit is also what a reader lets a compressed model
        // expand to, so a record compressed below it from a larger model could never be read.
        // Compression only ever shrinks the record, so the check holds after it too.
        guard buffer.count <= recordLengthLimit else {
            throw ModelStoreError.valueTooLarge(key: key, byteCount: buffer.count)
        }
        compressor?.compress(&buffer, from: payloadStart)
        try space.withPhysicalKey(key) { keyBytes in
            try finish(&buffer, forKey: key, keyBytes: keyBytes)
        }
    }

    /// The last steps of every record a store writes (a new one, or one a rewrite assembled):
    /// sealing the model and metadata when the store encrypts, then the checksum over the bytes
    /// as stored.
    @inline(__always)
    func finish(_ buffer: inout [UInt8], forKey key: String, keyBytes: UnsafeRawBufferPointer) throws(ModelStoreError) {
        if let cipher { try cipher.seal(&buffer, key: keyBytes, recordKey: key) }
        RecordHeader.seal(&buffer, key: keyBytes)
    }

    /// Appends the metadata section and then the model, when no tag section comes between them,
    /// with one codec call for both (``ModelCodec/encode(_:then:appendingTo:)``: for a small
    /// metadata value, the fixed cost of a second call was most of what metadata added to a put).
    /// Returns where the model's bytes start.
    private func appendMetadataAndModel<Metadata: Encodable, Value: Encodable>(
        _ metadata: Metadata, _ value: Value, forKey key: String, to buffer: inout [UInt8]
    ) throws -> Int {
        let lengthAt = RecordHeader.beginMetadataSection(codec: codec.identifier, in: &buffer)
        let payloadStart: Int
        do {
            payloadStart = try codec.encode(metadata, then: value, appendingTo: &buffer)
        } catch {
            // Which of the two failed decides the error: the metadata is encoded on its own to tell.
            var scratch: [UInt8] = []
            do {
                try codec.encode(metadata, appendingTo: &scratch)
            } catch {
                throw Self.metadataEncodingFailed(error, key: key, type: Metadata.self)
            }
            throw ModelStoreError.encodingFailed(
                key: key, type: String(describing: Value.self), message: describeCodingError(error))
        }
        // A codec of the user's own may implement the pair itself: a middle outside the bytes it
        // appended (one counted from its own start, say) would crash the length's encoding or
        // store a damaged section.
        guard payloadStart >= lengthAt + 2, payloadStart <= buffer.count else {
            throw ModelStoreError.encodingFailed(
                key: key, type: String(describing: Value.self),
                message: "\(type(of: codec)).encode(_:then:appendingTo:) returned \(payloadStart) as where the "
                    + "model starts, outside the bytes it appended (\(lengthAt + 2)...\(buffer.count))")
        }
        return payloadStart + RecordHeader.finishMetadataSection(lengthAt: lengthAt, end: payloadStart, in: &buffer)
    }

    /// Encodes `metadata` as a metadata section on its own: what a rewrite that replaces a
    /// record's metadata appends.
    func metadataSection<Metadata: Encodable>(_ metadata: Metadata, forKey key: String) throws -> [UInt8] {
        var section: [UInt8] = []
        do {
            try RecordHeader.appendMetadataSection(encoding: metadata, with: codec, to: &section)
        } catch {
            throw Self.metadataEncodingFailed(error, key: key, type: Metadata.self)
        }
        return section
    }

    /// The error for metadata of type `type` that does not encode.
    static func metadataEncodingFailed(_ error: any Error, key: String, type: Any.Type) -> ModelStoreError {
        .encodingFailed(
            key: key, type: String(describing: type),
            message: "the metadata does not encode: \(describeCodingError(error))")
    }
}
