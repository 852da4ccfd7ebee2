import Foundation

/// How a store instance or snapshot interprets stored records: its policy lifetime, its
/// codec and its clock. Shared by every read path so they agree on expiry and decoding.
struct RecordReader: Sendable {
    let timeToLive: Double?
    let codec: any ModelCodec
    let clock: @Sendable () -> Date
    /// The database's path, for ``ModelStoreError/corrupted(path:message:)``.
    let path: String
    /// The database's compression dictionaries, for compressed payloads.
    let dictionaries: RecordDictionaries
    /// The largest model a compressed payload may expand to: no write could have stored more.
    let payloadLimit: Int
    /// Opens sealed records when the store encrypts; nil: it has no key.
    let cipher: RecordCipher?

    init(
        policy: UpdatePolicy, configuration: ModelStore.Configuration, path: String, dictionaries: RecordDictionaries
    ) {
        timeToLive = policy.timeToLive
        codec = configuration.codec
        clock = configuration.now
        self.path = path
        self.dictionaries = dictionaries
        payloadLimit = configuration.recordLengthLimit
        cipher = configuration.encryption.cipher
    }

    /// The clock's time as seconds since the reference date.
    @inline(__always)
    func now() -> Double {
        clock().timeIntervalSinceReferenceDate
    }

    /// Whether the record `header` describes is expired, reading the clock only when the record
    /// has a deadline (its own, or the store's lifetime) and keeping the time read in `time`
    /// (left alone otherwise). A store whose records never expire then never reads the clock
    /// on a read: on Linux `Date()` is a large share of a cached read (PERFORMANCE.md).
    @inline(__always)
    func isExpired(_ header: RecordHeader, readingClockInto time: inout Double) -> Bool {
        guard let deadline = header.deadline(timeToLive: timeToLive) else { return false }
        time = now()
        return time >= deadline
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
        guard let header = RecordHeader(parsingInPlace: record) else {
            // Damage that breaks the envelope is still damage: the checksum tells it from an
            // unknown (newer) format.
            if RecordHeader.isDamagedRecord(record, key: keyBytes) {
                throw Self.checksumMismatch(path: path, key: key, physicalKey: keyBytes)
            }
            throw .decodingFailed(
                key: key, type: typeName(),
                message: "the record's header is damaged or from an unknown format version")
        }
        guard header.checksumMatches(value: record, key: keyBytes) else {
            throw Self.checksumMismatch(path: path, key: key, physicalKey: keyBytes)
        }
        return header
    }

    /// For a record whose verified envelope (``header(_:key:keyBytes:typeName:)``) says it has
    /// expired: returns whether a read may delete it, which only a version-3 record's full
    /// checksum allows; a version-1 or version-2 record reads as missing and is left for sweeps
    /// and overwrites (its flags are not checked, see the format comment).
    ///
    /// - Throws: ``ModelStoreError/corrupted(path:message:)`` naming the key for a deadline no
    ///   write stores (see ``RecordHeader/hasPlausibleDeadline``): the unchecked flags of an
    ///   older record were damaged; for a record whose seal does not hold under an encrypting
    ///   store's key (``checkSeal(_:header:key:keyBytes:)``): its envelope vouches for nothing.
    @inline(__always)
    func mayPurgeExpired(
        _ header: RecordHeader, record: UnsafeRawBufferPointer, key: String, keyBytes: UnsafeRawBufferPointer
    ) throws(ModelStoreError) -> Bool {
        if cipher != nil { try checkSeal(record, header: header, key: key, keyBytes: keyBytes) }
        if header.isFullyChecked { return true }
        guard header.hasPlausibleDeadline else {
            throw Self.damagedEnvelope(path: path, key: key, physicalKey: keyBytes)
        }
        return false
    }

    /// For a record a read skips as expired: throws, as ``mayPurgeExpired(_:record:key:keyBytes:)``
    /// does, when an older record's unchecked envelope is evidently damaged or a sealed record's
    /// seal does not hold, so that a scan reports the damage instead of skipping the record.
    @inline(__always)
    func checkExpiredEnvelope(
        _ header: RecordHeader, record: UnsafeRawBufferPointer, key: String, keyBytes: UnsafeRawBufferPointer
    ) throws(ModelStoreError) {
        _ = try mayPurgeExpired(header, record: record, key: key, keyBytes: keyBytes)
    }

    /// The error for an older record whose unchecked envelope bytes are evidently damaged.
    static func damagedEnvelope(path: String, key: String, physicalKey: UnsafeRawBufferPointer) -> ModelStoreError {
        .damagedRecord(
            path: path, key: key, physicalKey: physicalKey,
            reason: "has a damaged envelope: its deadline is one no write stores (before the time it was stored, "
                + "or millennia after), so bytes of a record from an earlier release that its checksum does not "
                + "cover were changed")
    }

    /// The error for a record that fails its checksum.
    static func checksumMismatch(path: String, key: String, physicalKey: UnsafeRawBufferPointer) -> ModelStoreError {
        .damagedRecord(path: path, key: key, physicalKey: physicalKey, reason: checksumMismatchReason)
    }

    /// Why a record that fails its checksum cannot be trusted.
    static let checksumMismatchReason = "fails its checksum: its bytes were damaged, or it was copied from another key"

    /// Decodes the payload after `header` and wraps it with its metadata.
    func entry<Value: Decodable>(
        _ type: Value.Type, key: String, header: RecordHeader, record: UnsafeRawBufferPointer, isExpired: Bool = false
    ) throws(ModelStoreError) -> ModelStore.Entry<Value> {
        let value = try decodePayload(type, key: key, header: header, record: record)
        return entry(
            key: key, value: consume value, header: header, byteCount: record.count, isExpired: isExpired,
            metadata: StoredMetadata(record: record, header: header, storeCodec: codec),
            tags: TagIndex.tags(of: record, header: header))
    }

    func entry<Value>(
        key: String, value: consuming Value, header: RecordHeader, byteCount: Int, isExpired: Bool = false,
        metadata: consuming StoredMetadata? = nil, tags: [String]
    ) -> ModelStore.Entry<Value> {
        ModelStore.Entry(
            key: key,
            value: value,
            storedAt: Date(timeIntervalSinceReferenceDate: header.storedAt),
            expiresAt: header.deadline(timeToLive: timeToLive).map(Date.init(timeIntervalSinceReferenceDate:)),
            byteCount: byteCount,
            isExpired: isExpired,
            tags: tags,
            storedMetadata: metadata)
    }

    /// Decodes the model of `record` (whose envelope is `header`), decompressing it first when
    /// it is stored compressed.
    @inline(__always)
    func decodePayload<Value: Decodable>(
        _ type: Value.Type, key: String, header: RecordHeader, record: UnsafeRawBufferPointer
    ) throws(ModelStoreError) -> Value {
        let payload = UnsafeRawBufferPointer(rebasing: record[header.length...])
        guard header.isPayloadCompressed else {
            return try decode(type, key: key, codec: header.codec, payload: payload)
        }
        return try decompressed(key: key, section: payload) { bytes throws(ModelStoreError) in
            try decode(type, key: key, codec: header.codec, payload: bytes)
        }
    }

    /// Calls `body` with the model a compressed payload section (a dictionary id, then a
    /// Zstandard frame) holds.
    ///
    /// - Throws: ``ModelStoreError/corrupted(path:message:)`` naming the key when the id is
    ///   damaged or names a dictionary the database does not hold, when the frame is damaged or
    ///   truncated, or when it claims more than ``payloadLimit`` bytes (refused before
    ///   anything is allocated); what `body` throws.
    func decompressed<Result>(
        key: String, section: UnsafeRawBufferPointer,
        _ body: (UnsafeRawBufferPointer) throws(ModelStoreError) -> Result
    ) throws(ModelStoreError) -> Result {
        func damaged(_ reason: String) -> ModelStoreError {
            .corrupted(
                path: path,
                message: "the compressed model of the record for key \(ModelStoreError.abbreviated(key)) \(reason)")
        }
        var offset = 0
        guard let id = LEB128.readIdentifier(section, at: &offset), id <= UInt64(UInt32.max) else {
            throw damaged("has no valid dictionary id")
        }
        var dictionary: ZstdDictionary? = nil
        if id != 0 {
            guard let found = dictionaries.dictionary(id: UInt32(id)) else {
                throw damaged("names dictionary \(id), which the database does not hold (or holds damaged)")
            }
            dictionary = found
        }
        let frame = UnsafeRawBufferPointer(rebasing: section[offset...])
        do {
            return try ZstdDecompressionContext.decompress(frame, dictionary: dictionary, limit: payloadLimit) {
                try body($0)
            }
        } catch let error as ModelStoreError {
            throw error
        } catch ZstdDecompressionContext.Failure.unknownSize {
            throw damaged("does not declare its size")
        } catch ZstdDecompressionContext.Failure.tooLarge(let size) {
            throw damaged("claims \(size) bytes, more than any record may hold (\(payloadLimit))")
        } catch ZstdDecompressionContext.Failure.damaged(let reason) {
            throw damaged("does not decompress: \(ModelStoreError.clause(reason))")
        } catch {
            throw .io(path: path, message: "Zstandard could not make a decompression context")
        }
    }

    /// Decodes with the codec that wrote the record: the store's own, or any built-in one.
    func decode<Value: Decodable>(
        _ type: Value.Type, key: String, codec identifier: ModelCodecIdentifier, payload: UnsafeRawBufferPointer
    ) throws(ModelStoreError) -> Value {
        // The store's codec is opened, not copied into a local existential: a copy retains and releases
        // each reference the codec holds on every read.
        if identifier == codec.identifier {
            return try decode(type, key: key, with: codec, payload: payload)
        }
        guard let builtIn = BuiltInCodecs.codec(for: identifier) else {
            throw .decodingFailed(
                key: key, type: String(describing: type),
                message: "the record was written by codec \(identifier), which this store is not configured with")
        }
        return try decode(type, key: key, with: builtIn, payload: payload)
    }

    private func decode<Value: Decodable, Codec: ModelCodec>(
        _ type: Value.Type, key: String, with codec: Codec, payload: UnsafeRawBufferPointer
    ) throws(ModelStoreError) -> Value {
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
