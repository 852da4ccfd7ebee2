import Foundation

extension ModelStore {
    /// Returns the model stored for `key`, or nil if there is none or it has expired.
    ///
    /// ```swift
    /// let cached: User? = try store.object(forKey: "user")
    /// ```
    ///
    /// Reading an expired record removes it (one written by this release; an older record is
    /// left for a sweep, see "On disk" in the README).
    ///
    /// - Throws: ``ModelStoreError/decodingFailed(key:type:message:)`` if the stored record
    ///   does not decode as `Value` (the record is left untouched);
    ///   ``ModelStoreError/invalidKey(key:reason:)``; ``ModelStoreError/closed(path:)``.
    public func object<Value: Decodable>(forKey key: String) throws -> Value? {
        try object(Value.self, forKey: key)
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
        try object(type, forKey: key, space: .default)
    }

    func object<Value: Decodable>(_ type: Value.Type, forKey key: String, space: KeySpace) throws -> Value? {
        // The same steps as entry(_:forKey:), but decoding straight into a local: no Entry
        // and no tuple are built, which saves the generic-metadata lookups unspecialised code
        // pays for them on every call (measured: about 0.7 µs per read, half of a cache hit).
        let database = try openDatabase()
        try Self.validate(key: key)
        // The clock is read only for a record that can expire (see RecordReader.isExpired).
        var now = 0.0
        // The cache is reached through the database's own reference, not a local copy of it: a
        // copy is a retain and a release of the one cache object every thread shares, two atomic
        // writes to one cache line per hit that two threads' hits hand back and forth (measured:
        // the largest cost of a hit on two threads).
        if ObjectCache.isCacheable(type), let item = database.cache?.lookup(key, in: space),
            let value = item.value as? Value
        {
            guard reader.isExpired(item.header, readingClockInto: &now) else {
                return value
            }
            try space.withPhysicalKey(key) { purgeIfExpired(key: $0, now: now, space: space) }
            database.cache?.invalidate(key, in: space)
            return nil
        }
        let cache = ObjectCache.isCacheable(type) ? database.cache : nil
        let generation = cache?.generation(of: key, in: space) ?? 0
        var value: Value? = nil
        var header: RecordHeader? = nil
        var metadata: StoredMetadata? = nil
        var tags: [String] = []
        var byteCount = 0
        // Set when the record has expired and may be deleted by this read (see mayPurgeExpired).
        var purge = false
        try space.withPhysicalKey(key) { keyBytes in
            try database.run { engine in
                try engine.withValue(forKey: keyBytes) { record in
                    guard let record else { return }
                    let parsed = try reader.header(record, key: key, keyBytes: keyBytes, type: type)
                    if reader.isExpired(parsed, readingClockInto: &now) {
                        purge = try reader.mayPurgeExpired(parsed, key: key, keyBytes: keyBytes)
                        return
                    }
                    value = try reader.decodePayload(type, key: key, header: parsed, record: record)
                    header = parsed
                    byteCount = record.count
                    // Kept for the cache, so an entry served from it still has its metadata and tags.
                    if cache != nil {
                        metadata = StoredMetadata(record: record, header: parsed, storeCodec: reader.codec)
                        tags = TagIndex.tags(of: record, header: parsed)
                    }
                }
            }
            if purge { purgeIfExpired(key: keyBytes, now: now, space: space) }
        }
        if let cache, let value, let header {
            cache.insert(
                key, in: space,
                ObjectCache.Item(value: value, header: header, byteCount: byteCount, metadata: metadata, tags: tags),
                ifGeneration: generation)
        }
        return value
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
    /// With ``Configuration/objectCacheLimit`` above zero, a repeated read of the same key
    /// is answered from memory without touching LevelDB or the codec.
    ///
    /// - Throws: See ``object(forKey:)``.
    public func entry<Value: Decodable>(_ type: Value.Type, forKey key: String) throws -> Entry<Value>? {
        try entry(type, forKey: key, space: .default)
    }

    func entry<Value: Decodable>(_ type: Value.Type, forKey key: String, space: KeySpace) throws -> Entry<Value>? {
        let database = try openDatabase()
        try Self.validate(key: key)
        // The clock is read only for a record that can expire (see RecordReader.isExpired).
        var now = 0.0
        let cache = ObjectCache.isCacheable(type) ? database.cache : nil
        if let cache, let item = cache.lookup(key, in: space), let value = item.value as? Value {
            guard !reader.isExpired(item.header, readingClockInto: &now) else {
                try space.withPhysicalKey(key) { purgeIfExpired(key: $0, now: now, space: space) }
                cache.invalidate(key, in: space)
                return nil
            }
            return reader.entry(
                key: key, value: value, header: item.header, byteCount: item.byteCount, metadata: item.metadata,
                tags: item.tags)
        }
        let generation = cache?.generation(of: key, in: space) ?? 0
        // Set when the record has expired and may be deleted by this read (see mayPurgeExpired).
        var purge = false
        // Filled in place by closures that return nothing, as object(_:forKey:) does: an entry returned
        // through the engine's generic closures was copied twice on the way out (its model, metadata
        // and key: about 20 reference-count operations each time for the benchmark's profile).
        var entry: Entry<Value>?
        var header: RecordHeader?
        try space.withPhysicalKey(key) { keyBytes in
            try database.run { engine in
                try engine.withValue(forKey: keyBytes) { record in
                    guard let record else { return }
                    let parsed = try reader.header(record, key: key, keyBytes: keyBytes, type: type)
                    if reader.isExpired(parsed, readingClockInto: &now) {
                        purge = try reader.mayPurgeExpired(parsed, key: key, keyBytes: keyBytes)
                        return
                    }
                    entry = try reader.entry(type, key: key, header: parsed, record: record)
                    header = parsed
                }
            }
            if purge { purgeIfExpired(key: keyBytes, now: now, space: space) }
        }
        if let cache, let header, let found = entry {
            cache.insert(key, in: space, ObjectCache.Item(found, header: header), ifGeneration: generation)
        }
        // Moved out: returning the variable itself copied the entry and then destroyed the original.
        return entry.take()
    }

    /// Returns the model stored for `key` even if it has expired, without removing it: for
    /// showing stale content while the source is unreachable.
    ///
    /// ```swift
    /// if let stale = try store.entry(User.self, forKey: "user", includingExpired: true) {
    ///     show(stale.value, outdated: stale.isExpired)
    /// }
    /// ```
    ///
    /// With `includingExpired` false this is ``entry(_:forKey:)``.
    ///
    /// - Throws: See ``object(forKey:)``.
    public func entry<Value: Decodable>(
        _ type: Value.Type, forKey key: String, includingExpired: Bool
    ) throws -> Entry<Value>? {
        try entry(type, forKey: key, includingExpired: includingExpired, space: .default)
    }

    func entry<Value: Decodable>(
        _ type: Value.Type, forKey key: String, includingExpired: Bool, space: KeySpace
    ) throws -> Entry<Value>? {
        guard includingExpired else { return try entry(type, forKey: key, space: space) }
        let database = try openDatabase()
        let now = reader.now()
        // Filled in place, not returned through the closures: see entry(_:forKey:space:).
        var entry: Entry<Value>?
        try space.withPhysicalKey(key) { keyBytes in
            try database.run { engine in
                try engine.withValue(forKey: keyBytes) { record in
                    guard let record else { return }
                    let header = try reader.header(record, key: key, keyBytes: keyBytes, type: type)
                    let expired = header.isExpired(now: now, timeToLive: reader.timeToLive)
                    entry = try reader.entry(type, key: key, header: header, record: record, isExpired: expired)
                }
            }
        }
        return entry.take()
    }

    /// Whether a record that has not expired is stored for `key`. Does not decode the model.
    ///
    /// - Throws: ``ModelStoreError/invalidKey(key:reason:)``; ``ModelStoreError/closed(path:)``.
    public func contains(_ key: String) throws -> Bool {
        try contains(key, space: .default)
    }

    func contains(_ key: String, space: KeySpace) throws -> Bool {
        let database = try openDatabase()
        let now = reader.now()
        return try space.withPhysicalKey(key) { keyBytes in
            let (state, purge) = try database.run { engine in
                try engine.withValue(forKey: keyBytes) { record -> (RecordState, Bool) in
                    let state = RecordState(record, key: keyBytes, now: now, timeToLive: reader.timeToLive)
                    // Only a version-3 record may be deleted by a read (see purgeIfExpired): an
                    // older expired one reads as missing without taking the write gate each time.
                    return (state, state == .expired && record?.first == RecordHeader.versionThree)
                }
            }
            if purge { purgeIfExpired(key: keyBytes, now: now, space: space) }
            return state == .live
        }
    }

    /// Removes the record for `key` if it is still expired at `now` and verified in full.
    ///
    /// It runs under the exclusive write gate and re-reads the record first, so a value
    /// that a concurrent writer stored after our read is never deleted. Only a version-3
    /// record whose checksum (over every byte) matches is deleted: a read never deletes what it
    /// has not verified, and an older record's flags are not covered by any checksum (see the
    /// format comment in RecordEnvelope.swift); those are left for sweeps and overwrites.
    /// Failures are ignored: the caller already has its answer (missing), and a failed delete
    /// only means the expired record stays until the next read or sweep.
    func purgeIfExpired(key: UnsafeRawBufferPointer, now: Double, space: KeySpace = .default) {
        let timeToLive = reader.timeToLive
        let removed = try? database.exclusiveWrite { engine -> Bool in
            let stillExpired = try engine.withValue(forKey: key) { record -> Bool in
                guard let record, let header = RecordHeader(parsing: record), header.isFullyChecked else {
                    return false
                }
                return header.isExpired(now: now, timeToLive: timeToLive)
                    && header.checksumMatches(value: record, key: key)
            }
            if stillExpired { try engine.delete(key: key, sync: false) }
            return stillExpired
        }
        let keyString = space.key(fromPhysical: key)
        database.cache?.invalidate(keyString, in: space)
        if removed == true, database.changes.isObserved { database.changes.publish(keyString, .expired, in: space) }
    }
}

/// Whether a record is absent, expired or live, judged from its header; a record is expired
/// only if its bytes vouch for that (see ``RecordHeader/vouchesForItsExpiry(value:key:)``).
enum RecordState {
    case missing, expired, live

    /// `key` is the record's LevelDB key, which its checksum covers.
    @inline(__always)
    init(_ record: UnsafeRawBufferPointer?, key: UnsafeRawBufferPointer, now: Double, timeToLive: Double?) {
        guard let record else {
            self = .missing
            return
        }
        // A damaged header still counts as present: contains() must not hide data that a
        // typed read would report as undecodable.
        guard let header = RecordHeader(parsing: record) else {
            self = .live
            return
        }
        guard header.isExpired(now: now, timeToLive: timeToLive) else {
            self = .live
            return
        }
        // Only a record that looks expired pays for the checksum: one that fails it is damage,
        // which counts as present for the same reason (its expiry may be what was damaged).
        self = header.vouchesForItsExpiry(value: record, key: key) ? .expired : .live
    }
}
