import Foundation

extension ModelStore {
    /// Returns the model stored for `key`, or nil if there is none or it has expired.
    ///
    /// ```swift
    /// let cached: User? = try store.object(forKey: "user")
    /// ```
    ///
    /// Reading an expired record removes it.
    ///
    /// - Throws: ``ModelStoreError/decodingFailed(key:type:message:)`` if the stored record
    ///   does not decode as `Value` (the record is left untouched);
    ///   ``ModelStoreError/invalidKey(key:reason:)``; ``ModelStoreError/closed(path:)``.
    public func object<Value: Decodable>(forKey key: String) throws -> Value? {
        try entry(Value.self, forKey: key)?.value
    }

    /// Returns the model of type `type` stored for `key`, or nil if there is none or it has
    /// expired.
    ///
    /// ```swift
    /// let user = try store.object(User.self, forKey: "user")
    /// ```
    ///
    /// - Throws: See ``object(forKey:)``.
    public func object<Value: Decodable>(_ type: Value.Type, forKey key: String) throws -> Value? {
        try entry(type, forKey: key)?.value
    }

    /// Returns the model stored for `key` with when it was stored and when it expires, or
    /// nil if there is none or it has expired.
    ///
    /// ```swift
    /// if let entry = try store.entry(User.self, forKey: "user") {
    ///     print(entry.storedAt, entry.expiresAt ?? "never")
    /// }
    /// ```
    ///
    /// - Throws: See ``object(forKey:)``.
    public func entry<Value: Decodable>(_ type: Value.Type, forKey key: String) throws -> Entry<Value>? {
        let database = try openDatabase()
        let now = now()
        var sawExpired = false
        let entry = try withKeyBytes(key) { keyBytes in
            let entry = try database.run { engine in
                try engine.withValue(forKey: keyBytes) { value -> Entry<Value>? in
                    guard let value else { return nil }
                    let header = try parseHeader(value, key: key, type: type)
                    if header.isExpired(now: now, timeToLive: timeToLive) {
                        sawExpired = true
                        return nil
                    }
                    return try makeEntry(type, key: key, header: header, record: value)
                }
            }
            if sawExpired { purgeIfExpired(key: keyBytes, now: now) }
            return entry
        }
        return entry
    }

    /// Whether a record that has not expired is stored for `key`. Does not decode the model.
    ///
    /// - Throws: ``ModelStoreError/invalidKey(key:reason:)``; ``ModelStoreError/closed(path:)``.
    public func contains(_ key: String) throws -> Bool {
        let database = try openDatabase()
        let now = now()
        return try withKeyBytes(key) { keyBytes in
            let state = try database.run { engine in
                try engine.withValue(forKey: keyBytes) { value -> RecordState in
                    guard let value else { return .missing }
                    guard let header = RecordHeader(parsing: value) else { return .live }  // present, if damaged
                    return header.isExpired(now: now, timeToLive: timeToLive) ? .expired : .live
                }
            }
            if state == .expired { purgeIfExpired(key: keyBytes, now: now) }
            return state == .live
        }
    }

    private enum RecordState { case missing, expired, live }

    // MARK: - Helpers shared by every read path

    func parseHeader<Value>(
        _ record: UnsafeRawBufferPointer, key: String, type: Value.Type
    ) throws(ModelStoreError) -> RecordHeader {
        guard let header = RecordHeader(parsing: record) else {
            throw .decodingFailed(
                key: key, type: String(describing: type),
                message: "the record's header is damaged or from an unknown format version")
        }
        return header
    }

    /// Decodes the payload after `header` and wraps it with its metadata.
    func makeEntry<Value: Decodable>(
        _ type: Value.Type, key: String, header: RecordHeader, record: UnsafeRawBufferPointer
    ) throws(ModelStoreError) -> Entry<Value> {
        let payload = UnsafeRawBufferPointer(rebasing: record[header.length...])
        let value = try decodePayload(type, key: key, codec: header.codec, payload: payload)
        return Entry(
            key: key,
            value: value,
            storedAt: Date(timeIntervalSinceReferenceDate: header.storedAt),
            expiresAt: header.deadline(timeToLive: timeToLive).map(Date.init(timeIntervalSinceReferenceDate:)),
            byteCount: record.count)
    }

    /// Decodes with the codec that wrote the record: the store's own, or any built-in one.
    func decodePayload<Value: Decodable>(
        _ type: Value.Type, key: String, codec identifier: ModelCodecIdentifier, payload: UnsafeRawBufferPointer
    ) throws(ModelStoreError) -> Value {
        let codec: any ModelCodec
        if identifier == configuration.codec.identifier {
            codec = configuration.codec
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

    /// Removes the record for `key` if it is still expired at `now`.
    ///
    /// It runs under the exclusive write gate and re-reads the record first, so a value
    /// that a concurrent writer stored after our read is never deleted. Failures are ignored:
    /// the caller already has its answer (missing), and a failed delete only means the
    /// expired record stays until the next read or sweep.
    func purgeIfExpired(key: UnsafeRawBufferPointer, now: Double) {
        let timeToLive = timeToLive
        _ = try? database.exclusiveWrite { engine in
            let stillExpired = try engine.withValue(forKey: key) { value -> Bool in
                guard let value, let header = RecordHeader(parsing: value) else { return false }
                return header.isExpired(now: now, timeToLive: timeToLive)
            }
            if stillExpired { try engine.delete(key: key, sync: false) }
        }
    }
}

/// A one-line description of an encoding or decoding error that names the field involved.
func describeCodingError(_ error: any Error) -> String {
    func path(_ codingPath: [any CodingKey]) -> String {
        codingPath.isEmpty ? "the top level" : codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }
            .joined(separator: ".")
    }
    switch error {
    case let DecodingError.keyNotFound(key, context):
        return "missing field \"\(key.stringValue)\" at \(path(context.codingPath))"
    case let DecodingError.typeMismatch(type, context):
        return "expected \(type) at \(path(context.codingPath)): \(context.debugDescription)"
    case let DecodingError.valueNotFound(type, context):
        return "expected \(type) but found null at \(path(context.codingPath))"
    case let DecodingError.dataCorrupted(context):
        return "corrupted data at \(path(context.codingPath)): \(context.debugDescription)"
    case let EncodingError.invalidValue(value, context):
        return "cannot encode \(value) at \(path(context.codingPath)): \(context.debugDescription)"
    default:
        return String(describing: error)
    }
}
