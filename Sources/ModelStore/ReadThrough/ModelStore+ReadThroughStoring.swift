import Foundation

extension ModelStore {
    /// Stores what a read-through fetch answered and returns what its callers get. Runs in the
    /// fetch's task; the LevelDB writes are offloaded, so they never block the cooperative pool.
    func storeFetchResult<Value: Codable & Sendable>(
        _ result: FetchResult<Value>, forKey key: String, options: ReadThroughOptions, space: KeySpace = .default,
        previous: Entry<Value>?
    ) async throws -> Value? {
        switch result {
        case let .value(value, lifetime, carried):
            let lifetime = lifetime ?? options.lifetime
            if let lifetime { try UpdatePolicy.validate(lifetime: lifetime, what: "the fetch's expiresAfter") }
            let (metadata, givenTags) = FetchedTags.split(carried)
            if let givenTags {
                let tags = try TagIndex.validated(givenTags)
                try await offload { [self] in
                    try storeTagged(
                        value, forKey: key, lifetime: lifetime, metadata: metadata, tags: tags, space: space)
                }
            } else {
                // No tags given: the record keeps the ones it has when this is written.
                let expected = previous?.tags ?? []
                try await offload { [self] in
                    try storeKeepingTags(
                        value, forKey: key, lifetime: lifetime, metadata: metadata, expecting: expected, space: space)
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
            _ = try await offload { [self] in
                try refresh(forKey: key, expiresAfter: lifetime, metadata: nil, includingExpired: true, space: space)
            }
            return previous.value
        case .notFound:
            let remember = options.notFoundLifetime
            try await offload { [self] in try removeNotFound(forKey: key, rememberingFor: remember, space: space) }
            return nil
        }
    }

    /// Removes the record of a key the source does not have, and remembers that for `lifetime`.
    ///
    /// Both happen in one hold of the exclusive write gate: a concurrent `set` of the key either
    /// wrote before (its record is removed here, and it forgets the memory after) or writes
    /// after (and forgets it), so a remembered "not found" never hides a stored record.
    func removeNotFound(forKey key: String, rememberingFor lifetime: TimeInterval?, space: KeySpace = .default) throws {
        let database = try openDatabase()
        let sync = configuration.syncWrites
        let now = reader.now()
        let timeToLive = reader.timeToLive
        let kind = try space.withPhysicalKey(key) { keyBytes in
            try database.exclusiveWrite { engine -> Change.Kind? in
                let state = try engine.withValue(forKey: keyBytes) { record in
                    RecordState(record, key: keyBytes, now: now, timeToLive: timeToLive)
                }
                if state != .missing { try engine.delete(key: keyBytes, sync: sync) }
                if let lifetime { database.notFound.remember(key, in: space, until: now + lifetime, now: now) }
                switch state {
                case .missing: return nil
                case .expired: return .expired
                case .live: return .removed
                }
            }
        }
        database.cache?.invalidate(key, in: space)
        // The source answered: it is up again, and there is no record left to serve stale.
        database.failSafe.forget(key, in: space)
        if let kind, database.changes.isObserved { database.changes.publish(key, kind, in: space) }
    }

    /// The live model for `key`, or nil if it is missing or expired (never purged: the
    /// read-through keeps an expired record for its fetch and its fail-safe), with its envelope.
    ///
    /// The hit path: the same steps as ``object(_:forKey:)``, decoding into locals, with no
    /// ``Entry`` or tuple built (unspecialised generic code pays metadata lookups for them,
    /// about 0.7 µs per call).
    func readThroughLiveValue<Value: Decodable>(
        _ type: Value.Type, forKey key: String, now: inout Double, space: KeySpace, in database: OpenDatabase,
        header found: inout RecordHeader?
    ) throws -> Value? {
        // Through the database's reference, not a local copy (see object(_:forKey:)).
        if ObjectCache.isCacheable(type), let item = database.cache?.lookup(key, in: space),
            let value = item.value as? Value
        {
            guard !reader.isExpired(item.header, readingClockInto: &now) else {
                return nil
            }
            found = item.header
            return value
        }
        let cache = ObjectCache.isCacheable(type) ? database.cache : nil
        let generation = cache?.generation(of: key, in: space) ?? 0
        var value: Value? = nil
        var metadata: StoredMetadata? = nil
        var tags: [String] = []
        var byteCount = 0
        try space.withPhysicalKey(key) { keyBytes in
            try database.run { engine in
                try engine.withValue(forKey: keyBytes) { record in
                    guard let record else { return }
                    let header = try reader.header(record, key: key, keyBytes: keyBytes, type: type)
                    guard !reader.isExpired(header, readingClockInto: &now) else {
                        return
                    }
                    value = try reader.decodePayload(type, key: key, header: header, record: record)
                    found = header
                    byteCount = record.count
                    if cache != nil {
                        metadata = StoredMetadata(record: record, header: header, storeCodec: reader.codec)
                        tags = TagIndex.tags(of: record, header: header)
                    }
                }
            }
        }
        if let cache, let value, let header = found {
            cache.insert(
                key, in: space,
                ObjectCache.Item(value: value, header: header, byteCount: byteCount, metadata: metadata, tags: tags),
                ifGeneration: generation)
        }
        return value
    }

    /// The entry for `key` even if expired, without purging it, answered from the object cache
    /// when it holds the key (so a read-through hit costs what ``object(_:forKey:)`` costs).
    func readThroughEntry<Value: Decodable>(
        _ type: Value.Type, forKey key: String, now: Double, space: KeySpace = .default
    ) throws -> Entry<Value>? {
        let database = try openDatabase()
        let timeToLive = reader.timeToLive
        let cache = ObjectCache.isCacheable(type) ? database.cache : nil
        if let cache, let item = cache.lookup(key, in: space), let value = item.value as? Value {
            let expired = item.header.isExpired(now: now, timeToLive: timeToLive)
            return reader.entry(
                key: key, value: value, header: item.header, byteCount: item.byteCount, isExpired: expired,
                metadata: item.metadata, tags: item.tags)
        }
        let generation = cache?.generation(of: key, in: space) ?? 0
        // Filled in place, not returned through the engine's closures (see entry(_:forKey:space:)).
        var entry: Entry<Value>?
        var header: RecordHeader?
        try space.withPhysicalKey(key) { keyBytes in
            try database.run { engine in
                try engine.withValue(forKey: keyBytes) { record in
                    guard let record else { return }
                    let parsed = try reader.header(record, key: key, keyBytes: keyBytes, type: type)
                    let expired = parsed.isExpired(now: now, timeToLive: timeToLive)
                    entry = try reader.entry(type, key: key, header: parsed, record: record, isExpired: expired)
                    header = parsed
                }
            }
        }
        if let cache, let header, let found = entry, !found.isExpired {
            cache.insert(key, in: space, ObjectCache.Item(found, header: header), ifGeneration: generation)
        }
        return entry.take()
    }
}
