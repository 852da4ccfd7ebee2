public import Foundation

// MARK: - Storing

extension Scope {
    /// Stores `value` under `key` with `metadata` (any type; nil: none) and `tags`, living
    /// `own` seconds (nil: the scope's lifetime, else the store's policy).
    func set<Value: Encodable>(
        _ value: Value, forKey key: String, lifetime own: TimeInterval?, metadata: (any Codable & Sendable)?,
        tags: [String]
    ) throws {
        // Opened once, here: below, the metadata is of its own type (see
        // `RecordHeader.appendMetadataSection(encoding:with:to:)`).
        if let metadata {
            try set(value, forKey: key, lifetime: own, with: metadata, tags: tags)
        } else {
            try set(value, forKey: key, lifetime: own, with: NoMetadata(), tags: tags)
        }
    }

    /// ``ModelWriter/set(_:forKey:expiresAfter:metadata:tags:)-7tnvs`` with metadata of its own type (``NoMetadata``:
    /// none). A record with tags goes in one atomic write with its tag-index entries.
    @usableFromInline
    func set<Value: Encodable, Metadata: Encodable>(
        _ value: Value, forKey key: String, lifetime own: TimeInterval?, with metadata: Metadata, tags: [String]
    ) throws {
        let database = try open()
        let lifetime = try recordLifetime(own)
        let tags = tags.isEmpty ? tags : try TagIndex.validated(tags)
        // The model's index values, for the record's section and the funnel's index step (nil:
        // the space has no index).
        let indexValues = try database.indexes.values(of: value, key: key, in: space)
        // Encoded outside any lock, into the thread's reusable buffer; this also validates the key.
        let record = RecordBuffer.take()
        defer { RecordBuffer.putBack(record) }
        try encoder.encode(
            value, forKey: key, storedAt: writeTime(), lifetime: lifetime, metadata: metadata, tags: tags,
            space: space, indexValues: indexValues, into: &record.bytes)
        let sync = configuration.syncWrites
        try space.withPhysicalKey(key) { keyBytes in
            try record.bytes.withUnsafeBytes { recordBytes in
                guard !tags.isEmpty else {
                    let change = KeyChange(key, in: space, .set, indexValues: indexValues)
                    return try database.commit(.put(key: keyBytes, value: recordBytes), change, sync: sync)
                }
                let batch = LevelDBWriteBatch()
                batch.put(key: keyBytes, value: recordBytes)
                TagIndex.addEntries(for: tags, recordKey: keyBytes, to: batch)
                try database.commit(
                    .batch(batch), ChangeList(KeyChange(key, in: space, .set, indexValues: indexValues)), sync: sync)
            }
        }
    }

    /// Encodes a record for `key` of `space` and adds it, with its tag-index entries, to `batch`:
    /// the step write batches and imports share (one `buffer` for all their records). Returns
    /// the change to commit, with the model's index values.
    func add<Value: Encodable, Metadata: Encodable>(
        _ value: Value, forKey key: String, in space: KeySpace, lifetime: TimeInterval?, with metadata: Metadata,
        tags: [String], to batch: LevelDBWriteBatch, buffer: inout [UInt8]
    ) throws -> KeyChange {
        let indexValues = try database.indexes.values(of: value, key: key, in: space)
        try encoder.encode(
            value, forKey: key, storedAt: writeTime(), lifetime: lifetime, metadata: metadata, tags: tags,
            space: space, indexValues: indexValues, into: &buffer)
        try space.withPhysicalKey(key) { keyBytes in
            buffer.withUnsafeBytes { batch.put(key: keyBytes, value: $0) }
            if !tags.isEmpty { TagIndex.addEntries(for: tags, recordKey: keyBytes, to: batch) }
        }
        return KeyChange(key, in: space, .set, indexValues: indexValues)
    }
}

// MARK: - Removing

extension Scope {
    /// Removes the record for `key`. Observers get `.removed` for a live record, `.expired` for
    /// an expired one, nothing when there was none.
    func removeObject(forKey key: String) throws {
        let database = try open()
        try space.withPhysicalKey(key) { keyBytes in
            try database.commit(
                .delete(key: keyBytes), ChangeList(KeyChange(key, in: space, .removed, dependsOnStoredRecord: true)),
                sync: configuration.syncWrites, judgedBy: reader)
        }
    }

    /// Removes the records for all `keys` in one atomic write; every key is validated first.
    func removeObjects<Keys: Sequence<String>>(forKeys keys: Keys) throws {
        let database = try open()
        let batch = LevelDBWriteBatch()
        var changes = ChangeList()
        for key in keys {
            try space.withPhysicalKey(key) { batch.delete(key: $0) }
            changes.append(KeyChange(key, in: space, .removed, dependsOnStoredRecord: true))
        }
        guard batch.count > 0 else { return }
        try database.commit(.batch(batch), changes, sync: configuration.syncWrites, judgedBy: reader)
    }

    /// Removes every record of the scope whose key starts with `prefix` (every record for an
    /// empty one) through the chunked removal loop; returns how many were live. Expired ones go
    /// too, reported `.expired`.
    @discardableResult
    func removeObjects(withPrefix prefix: String) throws -> Int {
        let database = try open()
        return try database.asBulkRemoval {
            defer { database.didRemove(prefix: prefix, in: space) }
            let now = reader.now()
            let timeToLive = reader.timeToLive
            let space = space
            var live = 0
            try database.removeInChunks(space.physical(.prefix(prefix)), sync: configuration.syncWrites) { key, record, chunk in
                // A damaged header counts as live, as in count(in:).
                let expired = RecordState(record, key: key, now: now, timeToLive: timeToLive) == .expired
                if !expired { live += 1 }
                chunk.remove(
                    key,
                    reporting: chunk.tracksKeys
                        ? KeyChange(space.key(fromPhysical: key), in: space, expired ? .expired : .removed) : nil)
            }
            return live
        }
    }

    /// Removes every record of the scope, then compacts its keys so the space is given back.
    @discardableResult
    func removeAllObjects() throws -> Int {
        let removed = try removeObjects(withPrefix: "")
        let range = space.all
        try database.run { engine in
            try engine.compact(start: range.lowerBound.isEmpty ? nil : range.lowerBound, limit: range.upperBound)
        }
        return removed
    }

    /// Removes the record at `keyBytes` if it is still expired at `now` and verified in full: what
    /// a read that found it expired does.
    ///
    /// Under the exclusive write gate, re-reading the record first, so a value a concurrent
    /// writer stored after the read is never deleted. Only a version-3 record whose checksum
    /// (over every byte) matches is deleted: a read never deletes what it has not verified, and
    /// an older record's flags are covered by no checksum (see the format comment in
    /// RecordEnvelope.swift); those are left for sweeps and overwrites. Failures are ignored:
    /// the caller already has its answer (missing), and a failed delete only leaves the expired
    /// record for the next read or sweep.
    func purge(_ keyBytes: UnsafeRawBufferPointer, now: Double) {
        let timeToLive = reader.timeToLive
        let reader = reader
        let key = space.key(fromPhysical: keyBytes)
        let space = space
        _ = try? database.commitExclusively { hold in
            let stillExpired = try hold.engine.withValue(forKey: keyBytes) { record -> Bool in
                guard let record, let header = RecordHeader(parsing: record), header.isFullyChecked else {
                    return false
                }
                return header.isExpired(now: now, timeToLive: timeToLive)
                    && header.checksumMatches(value: record, key: keyBytes)
                    && reader.sealVouches(record, keyBytes: keyBytes)
            }
            if stillExpired {
                try hold.write(.delete(key: keyBytes), ChangeList(KeyChange(key, in: space, .expired)), sync: false)
            }
        }
        // The model the cache may hold is expired either way.
        database.cache?.invalidate(key, in: space)
    }
}

// MARK: - Rewriting

extension Scope {
    /// Replaces the metadata of the live record for `key`, keeping its model's bytes, `storedAt`
    /// and deadline; false, writing nothing, if there is no live record.
    func replaceMetadata(_ metadata: any Codable & Sendable, forKey key: String) throws -> Bool {
        let clock = database.sharedTier?.clock
        return try rewrite(forKey: key, metadata: metadata, includingExpired: false) { old, _ in
            // In a fleet the rewritten record needs a version of its own, newer than the one it
            // replaces and than nothing else (FleetClock.swift): storedAt moves by one step.
            RecordHeader(
                storedAt: clock?.step(after: old.storedAt) ?? old.storedAt, expiresAt: old.expiresAt, codec: old.codec,
                neverExpires: old.neverExpires)
        }
    }

    /// Restarts the lifetime of the record for `key` without touching its model: with
    /// `lifetime`, that deadline from now; without, a lifetime of its own restarts with the same
    /// length, a record that never expires still never does, and a policy lifetime restarts by
    /// itself (it counts from `storedAt`). With `includingExpired`, an expired record is revived
    /// too (what a read-through's `.notModified` needs). False, writing nothing, if there is no
    /// such record.
    func refresh(
        forKey key: String, lifetime: TimeInterval?, metadata: (any Codable & Sendable)?, includingExpired: Bool = false
    ) throws -> Bool {
        if let lifetime { try UpdatePolicy.validate(lifetime: lifetime, what: "record lifetime") }
        let clock = database.sharedTier?.clock
        return try rewrite(forKey: key, metadata: metadata, includingExpired: includingExpired) { old, now in
            // In a fleet, the restart is a write of its own: its time is a version (FleetClock.swift).
            let now = clock?.issue(now) ?? now
            if let lifetime { return RecordHeader(storedAt: now, lifetime: lifetime, codec: old.codec) }
            return RecordHeader(
                storedAt: now, expiresAt: old.expiresAt.map { now + ($0 - old.storedAt) }, codec: old.codec,
                neverExpires: old.neverExpires)
        }
    }

    /// Assembles the rewritten record into `buffer` (opening a sealed one first) and finishes
    /// it (sealed again, checksum), or returns why it cannot be rewritten.
    static func reassemble(
        _ record: UnsafeRawBufferPointer, old: RecordHeader, header: RecordHeader, newSection: [UInt8]?, key: String,
        keyBytes: UnsafeRawBufferPointer, reader: RecordReader, encoder: RecordEncoder, limit: Int,
        keepingIndexValues: Bool = true, into buffer: inout [UInt8]
    ) -> ModelStoreError? {
        do {
            try reader.opened(record, header: old, key: key, keyBytes: keyBytes) { record, old in
                RecordHeader.assemble(
                    into: &buffer, header: header, old: old, record: record, newSection: newSection,
                    keepingIndexValues: keepingIndexValues)
            }
            guard buffer.count <= limit else { return .valueTooLarge(key: key, byteCount: buffer.count) }
            try encoder.finish(&buffer, forKey: key, keyBytes: keyBytes)
            return nil
        } catch {
            return error as? ModelStoreError ?? .io(path: reader.path, message: "\(error)")
        }
    }

    /// What a rewrite found.
    private enum RewriteOutcome {
        case notFound, rewritten
        /// Returned, not thrown, from under the write gate: an error thrown there would count as
        /// a failed write and disable the store's writes.
        case refused(ModelStoreError)
    }

    /// Rewrites the record for `key` with the header `header` gives (from its envelope and now;
    /// the codec is the old one's) and `metadata` (nil: the stored one), copying the payload and
    /// the tags section verbatim, under the exclusive write gate: between the read and the write
    /// no other writer may store a newer value, which this would overwrite with the old model.
    private func rewrite(
        forKey key: String, metadata: (any Codable & Sendable)?, includingExpired: Bool,
        header makeHeader: (RecordHeader, Double) -> RecordHeader
    ) throws -> Bool {
        let database = try open()
        let reader = reader
        let sync = configuration.syncWrites
        let limit = configuration.recordLengthLimit
        let space = space
        // Encoded before the gate is taken: the exclusive hold stays short, and an encoding
        // failure is the caller's error, not a failed write.
        let newSection = try metadata.map { try encoder.metadataSection($0, forKey: key) }
        let buffer = RecordBuffer.take()
        defer { RecordBuffer.putBack(buffer) }
        let outcome = try space.withPhysicalKey(key) { keyBytes in
            try database.commitExclusively { hold -> RewriteOutcome in
                // Whatever the rewrite finds, memory forgets the key (as every write path does).
                hold.forget(KeyChange(key, in: space, .set))
                let now = reader.now()
                let outcome = try hold.engine.withValue(forKey: keyBytes) { record -> RewriteOutcome in
                    guard let record else { return .notFound }
                    let old: RecordHeader
                    do throws(ModelStoreError) {
                        old = try reader.header(record, key: key, keyBytes: keyBytes, typeName: "a ModelStore record")
                    } catch {
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
                    // The header comes from the stored envelope: a sealed record's timestamps are plain.
                    if let refusal = Self.reassemble(
                        record, old: old, header: makeHeader(old, now), newSection: newSection, key: key,
                        keyBytes: keyBytes, reader: reader, encoder: encoder, limit: limit, into: &buffer.bytes)
                    {
                        return .refused(refusal)
                    }
                    return .rewritten
                }
                guard case .rewritten = outcome else { return outcome }
                try buffer.bytes.withUnsafeBytes {
                    try hold.write(.put(key: keyBytes, value: $0), ChangeList(KeyChange(key, in: space, .set)), sync: sync)
                }
                return .rewritten
            }
        }
        switch outcome {
        case .notFound: return false
        case .refused(let error): throw error
        case .rewritten: return true
        }
    }
}
