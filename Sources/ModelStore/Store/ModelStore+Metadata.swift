public import Foundation

extension ModelStore {
    /// Returns the metadata stored beside the model for `key`, without decoding the model; nil
    /// if there is no record, it has expired, or it was stored without metadata.
    ///
    /// ```swift
    /// if let info = try store.metadata(HTTPInfo.self, forKey: "u1") {
    ///     request.setValue(info.etag, forHTTPHeaderField: "If-None-Match")
    /// }
    /// ```
    ///
    /// Only the record's envelope is read: a model that no longer decodes does not matter.
    /// Reading an expired record removes it, as ``object(forKey:)`` does.
    ///
    /// - Throws: ``ModelStoreError/decodingFailed(key:type:message:)`` naming the key if the
    ///   metadata does not decode as `type`; ``ModelStoreError/corrupted(path:message:)`` if the
    ///   record fails its checksum; ``ModelStoreError/invalidKey(key:reason:)``;
    ///   ``ModelStoreError/closed(path:)``.
    @inlinable
    public func metadata<Metadata: Decodable>(_ type: Metadata.Type, forKey key: String) throws -> Metadata? {
        // A shell compiled in the caller's module, for the caller's type: only there is
        // `Metadata?` free. In ModelStore's own, unspecialised code every function that holds
        // one looks up `Optional<Metadata>`'s type metadata on each call (measured: two lookups,
        // about 8 % of a call), so the read below decodes into a slot of `Metadata` itself.
        try withUnsafeTemporaryAllocation(of: Metadata.self, capacity: 1) { buffer in
            let slot = buffer.baseAddress.unsafelyUnwrapped
            return try decodeMetadata(type, forKey: key, into: slot) ? slot.move() : nil
        }
    }

    /// ``metadata(_:forKey:)`` in the default key space, for its inlinable shell.
    @usableFromInline
    func decodeMetadata<Metadata: Decodable>(
        _ type: Metadata.Type, forKey key: String, into slot: UnsafeMutablePointer<Metadata>
    ) throws -> Bool {
        try decodeMetadata(type, forKey: key, space: .default, into: slot)
    }

    /// Reads the metadata of the record for `key` in `space` and initializes `slot` with it;
    /// returns whether it did (false: no record, expired, or stored without metadata). `slot`
    /// is left uninitialized when this returns false or throws.
    func decodeMetadata<Metadata: Decodable>(
        _ type: Metadata.Type, forKey key: String, space: KeySpace, into slot: UnsafeMutablePointer<Metadata>
    ) throws -> Bool {
        let database = try openDatabase()
        // The clock is read only for a record that can expire (see RecordReader.isExpired).
        var now = 0.0
        // Closures that return nothing and no generic local: see metadata(_:forKey:). `reader`
        // is used through `self`, not copied: a copy retains and releases its codec and clock.
        var found = false
        // Set when the record has expired and may be deleted by this read (see mayPurgeExpired).
        var purge = false
        do {
            try space.withPhysicalKey(key) { keyBytes in
                try database.run { engine in
                    try engine.withValue(forKey: keyBytes) { record in
                        guard let record else { return }
                        let header = try self.reader.header(record, key: key, keyBytes: keyBytes, type: type)
                        if self.reader.isExpired(header, readingClockInto: &now) {
                            purge = try self.reader.mayPurgeExpired(header, key: key, keyBytes: keyBytes)
                            return
                        }
                        guard let codec = header.metadataCodec else { return }
                        slot.initialize(
                            to: try StoredMetadata.decode(
                                type, key: key, codec: codec,
                                bytes: UnsafeRawBufferPointer(rebasing: record[header.metadataRange]),
                                storeCodec: self.reader.codec))
                        found = true
                    }
                }
                if purge { purgeIfExpired(key: keyBytes, now: now, space: space) }
            }
        } catch {
            // Nothing throws after the slot is filled today; should that change, nothing leaks.
            if found { slot.deinitialize(count: 1) }
            throw error
        }
        return found
    }

    /// Replaces the metadata stored beside the model for `key`, leaving the model's stored
    /// bytes, `storedAt` and any deadline exactly as they were. Returns false, writing nothing,
    /// if there is no record or it has expired.
    ///
    /// ```swift
    /// let replaced = try store.replaceMetadata(HTTPInfo(etag: "\"def\""), forKey: "u1")
    /// ```
    ///
    /// The model is neither decoded nor re-encoded. The read and the write happen under the
    /// store's write gate held exclusively, so a concurrent ``set(_:forKey:)`` is never undone
    /// by this rewrite. ``changes(bufferingPolicy:)`` reports `.set`.
    ///
    /// - Throws: ``ModelStoreError/encodingFailed(key:type:message:)`` if the metadata does not
    ///   encode; ``ModelStoreError/corrupted(path:message:)`` if the record fails its checksum;
    ///   otherwise as ``set(_:forKey:)``.
    @discardableResult
    public func replaceMetadata(_ metadata: any Codable & Sendable, forKey key: String) throws -> Bool {
        try replaceMetadata(metadata, forKey: key, space: .default)
    }

    func replaceMetadata(_ metadata: any Codable & Sendable, forKey key: String, space: KeySpace) throws -> Bool {
        try rewriteRecord(forKey: key, space: space, metadata: metadata) { header, _ in
            RecordHeader(
                storedAt: header.storedAt, expiresAt: header.expiresAt, codec: header.codec,
                neverExpires: header.neverExpires)
        }
    }

    /// Restarts the lifetime of the record for `key` without touching its model: what a
    /// `304 Not Modified` answer needs. Returns false, writing nothing, if there is no record
    /// or it has expired.
    ///
    /// ```swift
    /// // The server says the cached copy is still current:
    /// try store.refresh(forKey: "u1", metadata: HTTPInfo(etag: etag, lastModified: lastModified))
    /// ```
    ///
    /// `storedAt` becomes now. With `lifetime`, the record gets that deadline; without one, a
    /// record stored with a lifetime of its own gets the same lifetime again from now, and one
    /// that expires by the store's policy keeps doing so. The model's stored bytes stay
    /// identical; the metadata is replaced when `metadata` is given and kept when it is nil.
    /// Runs under the exclusive write gate like ``replaceMetadata(_:forKey:)``, and
    /// ``changes(bufferingPolicy:)`` reports `.set`.
    ///
    /// - Parameters:
    ///   - key: The record's key.
    ///   - lifetime: A new lifetime in seconds, positive and finite; nil keeps the record's own.
    ///   - metadata: New metadata; nil keeps what is stored.
    /// - Throws: ``ModelStoreError/invalidPolicy(reason:)`` for a bad lifetime; otherwise as
    ///   ``replaceMetadata(_:forKey:)``.
    @discardableResult
    public func refresh(
        forKey key: String, expiresAfter lifetime: TimeInterval? = nil, metadata: (any Codable & Sendable)? = nil
    ) throws -> Bool {
        try refresh(forKey: key, expiresAfter: lifetime, metadata: metadata, includingExpired: false, space: .default)
    }

    /// ``refresh(forKey:expiresAfter:metadata:)`` in `space`; with `includingExpired`, it also
    /// revives an expired record: what a read-through's `.notModified` needs, since the record it
    /// validated has usually expired.
    func refresh(
        forKey key: String, expiresAfter lifetime: TimeInterval?, metadata: (any Codable & Sendable)?,
        includingExpired: Bool = false, space: KeySpace
    ) throws -> Bool {
        if let lifetime { try UpdatePolicy.validate(lifetime: lifetime, what: "record lifetime") }
        return try rewriteRecord(
            forKey: key, space: space, metadata: metadata, includingExpired: includingExpired
        ) { header, now in
            if let lifetime { return RecordHeader(storedAt: now, lifetime: lifetime, codec: header.codec) }
            // A lifetime of its own restarts with the same length, and a record that never
            // expires still never does; a policy lifetime restarts by itself, since it counts
            // from storedAt.
            return RecordHeader(
                storedAt: now, expiresAt: header.expiresAt.map { now + ($0 - header.storedAt) }, codec: header.codec,
                neverExpires: header.neverExpires)
        }
    }

    /// Rewrites the live record for `key` with the times `times` gives (a new header, from its
    /// envelope and now; its codec is the old one's) and `metadata` (nil: the stored one),
    /// copying the payload and the tags section verbatim. Returns false if there is no live
    /// record.
    private func rewriteRecord(
        forKey key: String, space: KeySpace, metadata: (any Codable & Sendable)?, includingExpired: Bool = false,
        times: (RecordHeader, Double) -> RecordHeader
    ) throws -> Bool {
        let database = try openDatabase()
        let reader = reader
        let sync = configuration.syncWrites
        let limit = configuration.recordLengthLimit
        // Encoded before the gate is taken: the exclusive hold stays short, and an encoding
        // failure is the caller's error, not a failed write (which would disable writes).
        var newSection: [UInt8]? = nil
        if let metadata {
            var section: [UInt8] = []
            do {
                try RecordHeader.appendMetadataSection(encoding: metadata, with: configuration.codec, to: &section)
            } catch {
                throw ModelStoreError.encodingFailed(
                    key: key, type: String(describing: type(of: metadata)),
                    message: "the metadata does not encode: \(describeCodingError(error))")
            }
            newSection = section
        }
        let buffer = RecordBuffer.take()
        defer { RecordBuffer.putBack(buffer) }
        defer { database.invalidate(key, in: space) }
        let outcome = try space.withPhysicalKey(key) { keyBytes in
            // Exclusive: between our read and our write no other writer may store a newer
            // value, which this rewrite would otherwise overwrite with the old model.
            try database.exclusiveWrite { engine -> RewriteOutcome in
                let now = reader.now()
                let outcome = try engine.withValue(forKey: keyBytes) { record -> RewriteOutcome in
                    guard let record else { return .notFound }
                    let old: RecordHeader
                    do throws(ModelStoreError) {
                        old = try reader.header(record, key: key, keyBytes: keyBytes, typeName: "a ModelStore record")
                    } catch {
                        // Returned, not thrown: an error thrown here would count as a failed
                        // write and disable the store's writes.
                        return .refused(error)
                    }
                    // The rewrite copies sections where the flags say they are: an older record's
                    // flags, which no checksum covers, must at least be plausible.
                    guard old.isFullyChecked || old.hasPlausibleDeadline else {
                        return .refused(RecordReader.damagedEnvelope(path: reader.path, key: key, physicalKey: keyBytes))
                    }
                    guard includingExpired || !old.isExpired(now: now, timeToLive: reader.timeToLive) else {
                        return .notFound
                    }
                    let header = times(old, now)
                    Self.assemble(into: &buffer.bytes, header: header, old: old, record: record, newSection: newSection)
                    guard buffer.bytes.count <= limit else {
                        return .refused(.valueTooLarge(key: key, byteCount: buffer.bytes.count))
                    }
                    return .rewritten
                }
                guard case .rewritten = outcome else { return outcome }
                RecordHeader.seal(&buffer.bytes, key: keyBytes)
                try buffer.bytes.withUnsafeBytes { try engine.put(key: keyBytes, value: $0, sync: sync) }
                return .rewritten
            }
        }
        switch outcome {
        case .notFound:
            return false
        case .refused(let error):
            throw error
        case .rewritten:
            if database.changes.isObserved { database.changes.publish(key, .set, in: space) }
            return true
        }
    }

    private enum RewriteOutcome {
        case notFound, rewritten
        case refused(ModelStoreError)
    }

    /// A version-3 value: `header`, the new metadata section (or `old`'s), `old`'s tags
    /// section and payload, byte for byte (a compressed payload stays compressed, with its
    /// flag). The checksum is left for the caller to seal.
    private static func assemble(
        into buffer: inout [UInt8], header: RecordHeader, old: RecordHeader, record: UnsafeRawBufferPointer,
        newSection: [UInt8]?
    ) {
        buffer.removeAll(keepingCapacity: true)
        let hasMetadata = newSection != nil || old.metadataCodec != nil
        header.writeVersionThree(
            to: &buffer, hasMetadata: hasMetadata, hasTags: !old.tagsRange.isEmpty,
            isCompressed: old.isPayloadCompressed)
        if let newSection {
            buffer.append(contentsOf: newSection)
        } else if let oldCodec = old.metadataCodec {
            RecordHeader.appendMetadataSection(
                codec: oldCodec, bytes: UnsafeRawBufferPointer(rebasing: record[old.metadataRange]), to: &buffer)
        }
        buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: record[old.tagsRange]))
        buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: record[old.length...]))
    }
}
