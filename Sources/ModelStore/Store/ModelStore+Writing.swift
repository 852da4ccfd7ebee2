public import Foundation

extension ModelStore {
    /// Stores `value` under `key`, replacing what was there. It expires by the store's policy.
    ///
    /// ```swift
    /// try store.set(user, forKey: "user")
    /// ```
    ///
    /// - Throws: ``ModelStoreError/encodingFailed(key:type:message:)`` (nothing is written);
    ///   ``ModelStoreError/invalidKey(key:reason:)``; ``ModelStoreError/valueTooLarge(key:byteCount:)``;
    ///   ``ModelStoreError/writesDisabled(path:message:)`` after an earlier write failure;
    ///   ``ModelStoreError/io(path:message:)``; ``ModelStoreError/closed(path:)``.
    public func set<Value: Encodable>(_ value: Value, forKey key: String) throws {
        try store(value, forKey: key, lifetime: nil)
    }

    /// Stores `value` under `key` with a lifetime of its own, which wins over the store's
    /// policy (shorter or longer).
    ///
    /// ```swift
    /// try store.set(session, forKey: "session", expiresAfter: 30)   // 30 seconds
    /// ```
    ///
    /// - Parameters:
    ///   - value: The model to store.
    ///   - key: The key to store it under.
    ///   - lifetime: Seconds until the record expires; positive and finite.
    /// - Throws: ``ModelStoreError/invalidPolicy(reason:)`` for a bad lifetime; otherwise as
    ///   ``set(_:forKey:)``.
    public func set<Value: Encodable>(_ value: Value, forKey key: String, expiresAfter lifetime: TimeInterval) throws {
        try UpdatePolicy.validate(lifetime: lifetime, what: "record lifetime")
        try store(value, forKey: key, lifetime: lifetime)
    }

    func store<Value: Encodable>(
        _ value: Value, forKey key: String, lifetime: TimeInterval?, metadata: (any Codable & Sendable)? = nil,
        space: KeySpace = .default
    ) throws {
        // Opened once, here: below, the metadata is of its own type (see `appendMetadataSection`).
        if let metadata {
            try store(value, forKey: key, lifetime: lifetime, with: metadata, space: space)
        } else {
            try store(value, forKey: key, lifetime: lifetime, with: NoMetadata(), space: space)
        }
    }

    /// ``store(_:forKey:lifetime:metadata:space:)`` with metadata of its own type (``NoMetadata``: none).
    func store<Value: Encodable, Metadata: Encodable>(
        _ value: Value, forKey key: String, lifetime: TimeInterval?, with metadata: Metadata, space: KeySpace
    ) throws {
        let database = try openDatabase()
        // Encoded outside any lock, into the thread's reusable buffer; this also validates the key.
        let record = RecordBuffer.take()
        defer { RecordBuffer.putBack(record) }
        try encodeRecord(value, forKey: key, lifetime: lifetime, with: metadata, space: space, into: &record.bytes)
        let sync = configuration.syncWrites
        defer { database.invalidate(key, in: space) }
        try space.withPhysicalKey(key) { keyBytes in
            try record.bytes.withUnsafeBytes { recordBytes in
                try database.write { engine in
                    try engine.put(key: keyBytes, value: recordBytes, sync: sync)
                }
            }
        }
        if database.changes.isObserved { database.changes.publish(key, .set, in: space) }
    }

    /// Encodes a record into `buffer` and adds it to `batch` under `key`: the step write
    /// batches and imports share. The key is validated once, by the encoding.
    func addRecord<Value: Encodable, Metadata: Encodable>(
        _ value: Value, forKey key: String, lifetime: TimeInterval?, with metadata: Metadata,
        to batch: LevelDBWriteBatch, buffer: inout [UInt8], space: KeySpace = .default
    ) throws {
        try encodeRecord(value, forKey: key, lifetime: lifetime, with: metadata, space: space, into: &buffer)
        try space.withPhysicalKey(key) { keyBytes in
            buffer.withUnsafeBytes { batch.put(key: keyBytes, value: $0) }
        }
    }

    /// Encodes the envelope (with `metadata`, if any) and model into `buffer` and seals it
    /// with its checksum, replacing its contents but keeping its capacity: batches and imports
    /// reuse one buffer for all their records (LevelDB copies each record into the batch),
    /// which saves an allocation per record.
    func encodeRecord<Value: Encodable>(
        _ value: Value, forKey key: String, lifetime: TimeInterval?, metadata: (any Codable & Sendable)?,
        tags: [String], space: KeySpace, into buffer: inout [UInt8]
    ) throws {
        if let metadata {
            try encodeRecord(value, forKey: key, lifetime: lifetime, with: metadata, tags: tags, space: space, into: &buffer)
        } else {
            try encodeRecord(
                value, forKey: key, lifetime: lifetime, with: NoMetadata(), tags: tags, space: space, into: &buffer)
        }
    }

    /// ``encodeRecord(_:forKey:lifetime:metadata:tags:space:into:)`` with metadata of its own
    /// type (``NoMetadata``: none).
    func encodeRecord<Value: Encodable, Metadata: Encodable>(
        _ value: Value, forKey key: String, lifetime: TimeInterval?, with metadata: Metadata,
        tags: [String] = [], space: KeySpace = .default, into buffer: inout [UInt8]
    ) throws {
        try Self.validate(key: key)
        let storedAt = reader.now()
        let codec = configuration.codec
        let header = RecordHeader(storedAt: storedAt, lifetime: lifetime, codec: codec.identifier)
        buffer.removeAll(keepingCapacity: true)
        // A metatype compare, not an optional: generic code that holds a `Metadata?` looks up
        // `Optional<Metadata>`'s type metadata at run time on every call.
        let hasMetadata = Metadata.self != NoMetadata.self
        header.writeVersionThree(to: &buffer, hasMetadata: hasMetadata, hasTags: !tags.isEmpty)
        let payloadStart: Int
        if hasMetadata, tags.isEmpty {
            payloadStart = try appendMetadataAndModel(metadata, value, forKey: key, codec: codec, to: &buffer)
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
        guard buffer.count <= configuration.recordLengthLimit else {
            throw ModelStoreError.valueTooLarge(key: key, byteCount: buffer.count)
        }
        if configuration.recordCompression.isEnabled { compressPayload(of: &buffer, from: payloadStart) }
        // The checksum covers the key as LevelDB stores it: a collection's prefix included.
        try space.withPhysicalKey(key) { RecordHeader.seal(&buffer, key: $0) }
    }

    /// Appends the metadata section and then the model, when no tag section comes between them,
    /// with one codec call for both (``ModelCodec/encode(_:then:appendingTo:)``: for a small
    /// metadata value, the fixed cost of a second call was most of what metadata added to a put).
    /// Returns where the model's bytes start.
    private func appendMetadataAndModel<Metadata: Encodable, Value: Encodable>(
        _ metadata: Metadata, _ value: Value, forKey key: String, codec: any ModelCodec, to buffer: inout [UInt8]
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
        // A codec of the user's own may implement the pair itself: a middle outside the bytes it appended (one
        // counted from its own start, say) would crash the length's encoding or store a damaged section.
        guard payloadStart >= lengthAt + 2, payloadStart <= buffer.count else {
            throw ModelStoreError.encodingFailed(
                key: key, type: String(describing: Value.self),
                message: "\(type(of: codec)).encode(_:then:appendingTo:) returned \(payloadStart) as where the "
                    + "model starts, outside the bytes it appended (\(lengthAt + 2)...\(buffer.count))")
        }
        return payloadStart + RecordHeader.finishMetadataSection(lengthAt: lengthAt, end: payloadStart, in: &buffer)
    }

    /// The error for metadata of type `type` that does not encode.
    private static func metadataEncodingFailed(_ error: any Error, key: String, type: Any.Type) -> ModelStoreError {
        .encodingFailed(
            key: key, type: String(describing: type),
            message: "the metadata does not encode: \(describeCodingError(error))")
    }

    // MARK: - Removing

    /// Removes the record for `key`. Removing a key that is not stored succeeds.
    ///
    /// ``changes(bufferingPolicy:)`` reports `.removed` if a live record was removed,
    /// `.expired` if the record had already expired, and nothing if there was none.
    ///
    /// - Throws: ``ModelStoreError/invalidKey(key:reason:)``; write errors as ``set(_:forKey:)``.
    public func removeObject(forKey key: String) throws {
        try removeObject(forKey: key, space: .default)
    }

    func removeObject(forKey key: String, space: KeySpace) throws {
        let database = try openDatabase()
        let sync = configuration.syncWrites
        guard !database.changes.isObserved else {
            // Observed: the batch path reads what each removal removes, for its change.
            try removeObjects(forKeys: CollectionOfOne(key), space: space)
            return
        }
        defer { database.invalidate(key, in: space) }
        try space.withPhysicalKey(key) { keyBytes in
            try database.write { engine in try engine.delete(key: keyBytes, sync: sync) }
        }
    }

    /// Removes the records for all `keys` in one atomic write: all are removed or none.
    ///
    /// ```swift
    /// try store.removeObjects(forKeys: ["a", "b"])
    /// ```
    ///
    /// ``changes(bufferingPolicy:)`` reports each record once: `.removed` for a live record,
    /// `.expired` for one that had already expired, nothing for a key with no record (or
    /// given twice).
    ///
    /// - Throws: ``ModelStoreError/invalidKey(key:reason:)`` before anything is removed if any
    ///   key is invalid; write errors as ``set(_:forKey:)``.
    public func removeObjects<Keys: Sequence<String>>(forKeys keys: Keys) throws {
        try removeObjects(forKeys: keys, space: .default)
    }

    func removeObjects<Keys: Sequence<String>>(forKeys keys: Keys, space: KeySpace) throws {
        let database = try openDatabase()
        let batch = LevelDBWriteBatch()
        var removed: [String] = []
        for key in keys {
            try space.withPhysicalKey(key) { batch.delete(key: $0) }
            removed.append(key)
        }
        guard batch.count > 0 else { return }
        try apply(
            batch, keys: removed, kinds: Array(repeating: .removed, count: removed.count),
            spaces: space.isDefault ? nil : Array(repeating: space, count: removed.count), in: database,
            sync: configuration.syncWrites)
    }

    /// Removes every record whose key starts with `prefix`, and returns how many live records
    /// it removed.
    ///
    /// ```swift
    /// try store.removeObjects(withPrefix: "feed:")
    /// ```
    ///
    /// Records under the prefix that had already expired are removed too, but not counted
    /// (so the result matches what ``count(in:)`` said just before), and
    /// ``changes(bufferingPolicy:)`` reports them as `.expired`, as a sweep does; live
    /// records are reported as `.removed`.
    ///
    /// The keys are removed in atomic chunks of up to 10,000; records written under the
    /// prefix while the call runs may or may not be removed.
    ///
    /// - Complexity: O(*n*) in the number of matching records; memory stays bounded.
    @discardableResult
    public func removeObjects(withPrefix prefix: String) throws -> Int {
        try removeObjects(withPrefix: prefix, space: .default)
    }

    func removeObjects(withPrefix prefix: String, space: KeySpace) throws -> Int {
        let database = try openDatabase()
        defer { database.invalidate(prefix: prefix, in: space) }
        return try removeRange(in: database, range: space.physical(.prefix(prefix)), space: space)
    }

    /// Removes every record of the default collection (the store's own keys) and compacts
    /// them so the space is given back to the file system. Returns how many live records it
    /// removed; expired ones are removed too and reported as `.expired`, as by
    /// ``removeObjects(withPrefix:)``.
    ///
    /// Named collections (``collection(_:)``) are left alone: each has its own
    /// ``Collection/removeAllObjects()``.
    @discardableResult
    public func removeAllObjects() throws -> Int {
        try removeAllObjects(space: .default)
    }

    func removeAllObjects(space: KeySpace) throws -> Int {
        let database = try openDatabase()
        defer { database.invalidate(prefix: "", in: space) }
        let range = space.all
        let removed = try removeRange(in: database, range: range, space: space)
        try database.run { engine in
            try engine.compact(start: range.lowerBound.isEmpty ? nil : range.lowerBound, limit: range.upperBound)
        }
        return removed
    }

    /// Deletes the keys in the physical `range` of `space` in atomic chunks, re-seeking after
    /// each chunk so no iterator stays open across writes. Returns how many of them were live.
    private func removeRange(in database: OpenDatabase, range: KeyRange, space: KeySpace) throws -> Int {
        let chunkSize = 10_000
        let sync = configuration.syncWrites
        let now = reader.now()
        let timeToLive = reader.timeToLive
        var removedLive = 0
        var resumeKey = range.lowerBound
        while true {
            let batch = LevelDBWriteBatch()
            var lastKey: [UInt8]? = nil
            var changes: [Change] = []
            var live = 0
            let observed = database.changes.isObserved
            try database.run { engine in
                let iterator = try engine.makeIterator(snapshot: nil, fillCache: false)
                try iterator.seek(to: resumeKey)
                while batch.count < chunkSize {
                    let more = try iterator.withCurrent { key, record -> Bool in
                        guard range.contains(key) else { return false }
                        batch.delete(key: key)
                        lastKey = Array(key)
                        // A damaged header counts as live, as in count(in:).
                        let expired = RecordState(record, key: key, now: now, timeToLive: timeToLive) == .expired
                        if !expired { live += 1 }
                        if observed {
                            let keyString = space.key(fromPhysical: key)
                            changes.append(
                                Change(key: keyString, kind: expired ? .expired : .removed, collection: space.collection))
                        }
                        return true
                    }
                    guard more == true else { break }
                    try iterator.next()
                }
            }
            guard batch.count > 0, let lastKey else { return removedLive }
            try database.write { engine in try engine.write(batch, sync: sync) }
            if observed { database.changes.publish(changes) }
            removedLive += live
            guard batch.count == chunkSize else { return removedLive }
            resumeKey = lastKey
        }
    }
}
