import Foundation

/// How a store instance or snapshot interprets stored records: its policy lifetime, its
/// codec and its clock. Shared by every read path so they agree on expiry and decoding.
struct RecordReader: Sendable {
    let timeToLive: Double?
    let codec: any ModelCodec
    let clock: @Sendable () -> Date
    /// The database's path, for ``ModelStoreError/corrupted(path:message:)``.
    let path: String

    init(policy: UpdatePolicy, configuration: ModelStore.Configuration, path: String) {
        timeToLive = policy.timeToLive
        codec = configuration.codec
        clock = configuration.now
        self.path = path
    }

    /// The clock's time as seconds since the reference date.
    @inline(__always)
    func now() -> Double {
        clock().timeIntervalSinceReferenceDate
    }

    /// Parses the envelope of a record whose contents are about to be trusted (a model or
    /// metadata handed out, a record rewritten), and verifies its checksum against the LevelDB
    /// key it was found under.
    ///
    /// - Throws: ``ModelStoreError/decodingFailed(key:type:message:)`` for an envelope that
    ///   does not parse; ``ModelStoreError/corrupted(path:message:)`` naming the key when the
    ///   checksum does not match: a wrong value is never returned.
    @inline(__always)
    func header<Value>(
        _ record: UnsafeRawBufferPointer, key: String, keyBytes: UnsafeRawBufferPointer, type: Value.Type
    ) throws(ModelStoreError) -> RecordHeader {
        try header(record, key: key, keyBytes: keyBytes, typeName: String(describing: type))
    }

    /// ``header(_:key:keyBytes:type:)`` for a read that does not know the model's type.
    @inline(__always)
    func header(
        _ record: UnsafeRawBufferPointer, key: String, keyBytes: UnsafeRawBufferPointer,
        typeName: @autoclosure () -> String
    ) throws(ModelStoreError) -> RecordHeader {
        guard let header = RecordHeader(parsing: record) else {
            throw .decodingFailed(
                key: key, type: typeName(),
                message: "the record's header is damaged or from an unknown format version")
        }
        guard header.checksumMatches(value: record, key: keyBytes) else {
            throw Self.checksumMismatch(path: path, key: key)
        }
        return header
    }

    /// The error for a record that fails its checksum.
    static func checksumMismatch(path: String, key: String) -> ModelStoreError {
        .corrupted(
            path: path,
            message: "the record for key \(ModelStoreError.abbreviated(key)) fails its checksum: its bytes were "
                + "damaged, or it was copied from another key")
    }

    /// Decodes the payload after `header` and wraps it with its metadata.
    func entry<Value: Decodable>(
        _ type: Value.Type, key: String, header: RecordHeader, record: UnsafeRawBufferPointer, isExpired: Bool = false
    ) throws(ModelStoreError) -> ModelStore.Entry<Value> {
        let payload = UnsafeRawBufferPointer(rebasing: record[header.length...])
        let value = try decode(type, key: key, codec: header.codec, payload: payload)
        return entry(
            key: key, value: value, header: header, byteCount: record.count, isExpired: isExpired,
            metadata: StoredMetadata(record: record, header: header, storeCodec: codec))
    }

    func entry<Value>(
        key: String, value: consuming Value, header: RecordHeader, byteCount: Int, isExpired: Bool = false,
        metadata: StoredMetadata? = nil
    ) -> ModelStore.Entry<Value> {
        ModelStore.Entry(
            key: key,
            value: value,
            storedAt: Date(timeIntervalSinceReferenceDate: header.storedAt),
            expiresAt: header.deadline(timeToLive: timeToLive).map(Date.init(timeIntervalSinceReferenceDate:)),
            byteCount: byteCount,
            isExpired: isExpired,
            storedMetadata: metadata)
    }

    /// Decodes with the codec that wrote the record: the store's own, or any built-in one.
    func decode<Value: Decodable>(
        _ type: Value.Type, key: String, codec identifier: ModelCodecIdentifier, payload: UnsafeRawBufferPointer
    ) throws(ModelStoreError) -> Value {
        let codec: any ModelCodec
        if identifier == self.codec.identifier {
            codec = self.codec
        } else if let builtIn = BuiltInCodecs.codec(for: identifier) {
            codec = builtIn
        } else {
            throw .decodingFailed(
                key: key, type: String(describing: type),
                message: "the record was written by codec \(identifier), which this store is not configured with")
        }
        do {
            return try codec.decode(type, fromBytes: payload)
        } catch {
            throw .decodingFailed(key: key, type: String(describing: type), message: describeCodingError(error))
        }
    }
}

/// A one-line description of an encoding or decoding error that names the field involved.
///
/// It is a clause without a final period (Foundation's messages end in one), so that the
/// sentence ``ModelStoreError`` builds around it never ends in "..".
func describeCodingError(_ error: any Error) -> String {
    func detail(_ context: DecodingError.Context) -> String {
        ModelStoreError.clause(context.debugDescription)
    }
    func detail(_ context: EncodingError.Context) -> String {
        ModelStoreError.clause(context.debugDescription)
    }
    func path(_ codingPath: [any CodingKey]) -> String {
        codingPath.isEmpty ? "the top level" : codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }
            .joined(separator: ".")
    }
    switch error {
    case let DecodingError.keyNotFound(key, context):
        return "missing field \"\(key.stringValue)\" at \(path(context.codingPath))"
    case let DecodingError.typeMismatch(type, context):
        return "expected \(type) at \(path(context.codingPath)): \(detail(context))"
    case let DecodingError.valueNotFound(type, context):
        return "expected \(type) but found null at \(path(context.codingPath))"
    case let DecodingError.dataCorrupted(context):
        return "corrupted data at \(path(context.codingPath)): \(detail(context))"
    case let EncodingError.invalidValue(value, context):
        return "cannot encode \(value) at \(path(context.codingPath)): \(detail(context))"
    default:
        return ModelStoreError.clause(String(describing: error))
    }
}
