import Foundation

// MARK: - What the read-through reads and stores

extension Scope {
    /// Stores what a read-through fetch answered and returns what its callers get. Runs in the
    /// fetch's task; the LevelDB writes are offloaded, so they never block the cooperative pool.
    func storeFetchResult<Value: Codable & Sendable>(
        _ result: FetchResult<Value>, forKey key: String, options: ReadThroughOptions,
        previous: ModelStore.Entry<Value>?
    ) async throws -> Value? {
        // With a shared tier, a write waits for its publication (SharedTier.swift).
        let waitingOnTier = try open().sharedTier != nil
        switch result {
        case let .value(value, lifetime, carried):
            let lifetime = lifetime ?? options.lifetime
            if let lifetime { try UpdatePolicy.validate(lifetime: lifetime, what: "the fetch's expiresAfter") }
            let (metadata, givenTags) = FetchedTags.split(carried)
            if let givenTags {
                let tags = try TagIndex.validated(givenTags)
                try await offload(waitingOnTier: waitingOnTier) { [self] in try set(value, forKey: key, lifetime: lifetime, metadata: metadata, tags: tags) }
            } else {
                // No tags given: the record keeps the ones it has when this is written.
                let expected = previous?.tags ?? []
                try await offload(waitingOnTier: waitingOnTier) { [self] in
                    try storeKeepingTags(value, forKey: key, lifetime: lifetime, metadata: metadata, expecting: expected)
                }
            }
            return value
        case let .notModified(lifetime):
            guard let previous else { throw ModelStoreError.notModifiedWithoutRecord(key: key) }
            let lifetime = lifetime ?? options.lifetime
            if let lifetime { try UpdatePolicy.validate(lifetime: lifetime, what: "the fetch's expiresAfter") }
            // The stored bytes are kept as they are (no re-encode), metadata included. If the
            // record was removed meanwhile, it stays removed: the caller still gets the model
            // the source just confirmed.
            _ = try await offload(waitingOnTier: waitingOnTier) { [self] in
                try refresh(forKey: key, lifetime: lifetime, metadata: nil, includingExpired: true)
            }
            return previous.value
        case .notFound:
            let remember = options.notFoundLifetime
            try await offload(waitingOnTier: waitingOnTier) { [self] in try removeNotFound(forKey: key, rememberingFor: remember) }
            return nil
        }
    }

    /// Removes the record of a key the source does not have, and remembers that for `lifetime`.
    ///
    /// Both happen in one hold of the exclusive write gate: a concurrent `set` of the key either
    /// wrote before (its record is removed here, and it forgets the memory after) or writes
    /// after (and forgets it), so a remembered "not found" never hides a stored record. The
    /// source answered, so it is up again: a fail-safe throttle of the key ends too.
    func removeNotFound(forKey key: String, rememberingFor lifetime: TimeInterval?) throws {
        let database = try open()
        let sync = configuration.syncWrites
        let now = reader.now()
        let timeToLive = reader.timeToLive
        let space = space
        let remembered = lifetime.map { (until: now + $0, now: now) }
        try space.withPhysicalKey(key) { keyBytes in
            try database.commitExclusively { hold in
                let state = try hold.engine.withValue(forKey: keyBytes) { record in
                    RecordState(record, key: keyBytes, now: now, timeToLive: timeToLive)
                }
                guard state != .missing else {
                    // Nothing to remove: only the answer to remember, under the gate all the same.
                    if let remembered { database.notFound.remember(key, in: space, until: remembered.until, now: now) }
                    database.failSafe.forget(key, in: space)
                    return
                }
                let change = KeyChange(key, in: space, state == .live ? .removed : .expired, remembersNotFound: remembered)
                try hold.write(.delete(key: keyBytes), ChangeList(change), sync: sync)
            }
        }
    }

    /// Stores `value` under `key` with the tags of the record it replaces, as that record is
    /// when the write happens; `expected` when there is no record (or one that fails its
    /// checksum, whose tags cannot be trusted). What a read-through `.value` without tags does,
    /// so that a refreshed record is still found by `removeObjects(taggedWith:)`.
    ///
    /// The record and its tag-index entries go in one atomic write, under the exclusive write
    /// gate, and the model is encoded before the gate is taken (no user code runs under it):
    ///
    /// 1. Encoded with `expected` (the tags of the entry the fetch was given), it is written if
    ///    the stored record's tags section is still the same, byte for byte.
    /// 2. Otherwise a write during the fetch changed them: it is encoded again with the stored
    ///    tags, and written if they still hold.
    /// 3. If they changed again, a write that ran while this one did replaced the tags: that
    ///    write is taken as the later of the two, and this one writes nothing (the fetched model
    ///    would have been replaced by it anyway). The call still ends, whatever other writers do.
    ///
    /// The index entries are written even when the tags are unchanged: a removal by tag or a
    /// sweep may have dropped them with a record removed while the fetch ran.
    func storeKeepingTags<Value: Encodable>(
        _ value: Value, forKey key: String, lifetime: TimeInterval?, metadata: (any Codable & Sendable)?,
        expecting expected: [String]
    ) throws {
        let database = try open()
        let sync = configuration.syncWrites
        let space = space
        let record = RecordBuffer.take()
        defer { RecordBuffer.putBack(record) }
        var tags = expected
        for attempt in 1...2 {
            let indexValues = try database.indexes.values(of: value, key: key, in: space)
            try encodeRecord(
                value, forKey: key, lifetime: lifetime, metadata: metadata, tags: tags, indexValues: indexValues,
                into: &record.bytes)
            let encodedSection = TagIndex.section(of: tags)
            let stored = try space.withPhysicalKey(key) { keyBytes in
                try database.commitExclusively { hold -> [UInt8]? in
                    let stored = try hold.engine.withValue(forKey: keyBytes) {
                        TagIndex.verifiedSection(of: $0, key: keyBytes)
                    }
                    if let stored, stored != encodedSection { return stored }
                    let batch = LevelDBWriteBatch()
                    record.bytes.withUnsafeBytes { batch.put(key: keyBytes, value: $0) }
                    TagIndex.addEntries(for: tags, recordKey: keyBytes, to: batch)
                    try hold.write(.batch(batch), ChangeList(KeyChange(key, in: space, .set, indexValues: indexValues)), sync: sync)
                    return nil
                }
            }
            guard let stored else { return }
            if attempt == 1 { tags = stored.withUnsafeBytes { TagIndex.tags(in: $0) } }
        }
    }

    /// Encodes a record of this scope into `buffer`, with metadata of any type (nil: none).
    private func encodeRecord<Value: Encodable>(
        _ value: Value, forKey key: String, lifetime: TimeInterval?, metadata: (any Codable & Sendable)?,
        tags: [String], indexValues: ComputedIndexValues?, into buffer: inout [UInt8]
    ) throws {
        let storedAt = writeTime()
        if let metadata {
            try encoder.encode(
                value, forKey: key, storedAt: storedAt, lifetime: lifetime, metadata: metadata, tags: tags,
                space: space, indexValues: indexValues, into: &buffer)
        } else {
            try encoder.encode(
                value, forKey: key, storedAt: storedAt, lifetime: lifetime, metadata: NoMetadata(), tags: tags,
                space: space, indexValues: indexValues, into: &buffer)
        }
    }

    /// The live model for `key`, or nil if it is missing or expired (never purged: the
    /// read-through keeps an expired record for its fetch and its fail-safe), with its envelope.
    ///
    /// The hit path: the same steps as ``object(_:forKey:)``, decoding into locals, with no
    /// entry or tuple built (unspecialised generic code pays metadata lookups for them).
    func readThroughLiveValue<Value: Decodable>(
        _ type: Value.Type, forKey key: String, now: inout Double, header found: inout RecordHeader?
    ) throws -> Value? {
        let database = try open()
        // Through the database's reference, not a local copy (see object(_:forKey:)).
        if ObjectCache.isCacheable(type), let item = database.cache?.lookup(key, in: space),
            let value = item.value.model(of: Value.self)
        {
            guard !reader.isExpired(item.header, readingClockInto: &now) else { return nil }
            database.didUse(hash: item.useHash)
            found = item.header
            return value
        }
        let cache = ObjectCache.isCacheable(type) ? database.cache : nil
        let generation = cache?.generation(of: key, in: space) ?? 0
        var value: Value? = nil
        var kept: CachedRecord? = nil
        try lookup(key, as: type, expired: .keep, now: &now, through: nil) { record, header, _ in
            value = try reader.decodePayload(type, key: key, header: header, record: record)
            found = header
            if cache != nil { kept = CachedRecord(record, header: header, codec: reader.codec) }
        }
        if let cache, let value, let kept {
            cache.insert(key, in: space, kept.item(value), ifGeneration: generation)
        }
        return value
    }

    /// The entry for `key` even if expired, judged at `now`, without purging it, answered from
    /// the object cache when it holds the key (so a read-through hit costs what
    /// ``object(_:forKey:)`` costs).
    func readThroughEntry<Value: Decodable>(
        _ type: Value.Type, forKey key: String, now: Double
    ) throws -> ModelStore.Entry<Value>? {
        let database = try open()
        let cache = ObjectCache.isCacheable(type) ? database.cache : nil
        if let cache, let item = cache.lookup(key, in: space), let value = item.value.model(of: Value.self) {
            let expired = item.header.isExpired(now: now, timeToLive: reader.timeToLive)
            if !expired { database.didUse(hash: item.useHash) }
            return reader.entry(
                key: key, value: value, header: item.header, byteCount: item.byteCount, isExpired: expired,
                metadata: item.metadata, tags: item.tags)
        }
        let generation = cache?.generation(of: key, in: space) ?? 0
        var now = now
        var entry: ModelStore.Entry<Value>?
        var header: RecordHeader?
        try lookup(key, as: type, expired: .include, now: &now, through: nil) { record, parsed, isExpired in
            entry = try reader.entry(type, key: key, header: parsed, record: record, isExpired: isExpired)
            header = parsed
        }
        if let cache, let header, let found = entry, !found.isExpired {
            cache.insert(key, in: space, ObjectCache.Item(found, header: header), ifGeneration: generation)
        }
        return entry.take()
    }
}
