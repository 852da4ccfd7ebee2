import Foundation

/// What a lookup does with a record whose deadline has passed.
enum ExpiredRecords {
    /// It reads as missing. A read of the live database deletes it once its bytes vouch for it
    /// (see ``RecordReader/mayPurgeExpired(_:record:key:keyBytes:)``); a snapshot's read leaves it.
    case purge
    /// It reads as missing and stays, unchecked: the read-through keeps it for its fetch's
    /// validators and its fail-safe.
    case keep
    /// It is handed over, marked expired.
    case include
}

// MARK: - The one record lookup

extension Scope {
    /// Finds the record for `key` and hands a verified one to `found`: the one path every read
    /// by key takes to LevelDB (object, entry, metadata, contains, the read-through, snapshots and
    /// batch reads).
    ///
    /// In order: the key is validated and mapped into the scope's key space; LevelDB is read
    /// (through `snapshot` if given); the envelope is parsed and its checksum verified against the
    /// key it was found under (``RecordReader/header(_:key:keyBytes:typeName:)``: a damaged or
    /// moved record is `corrupted`, never handed out); a sealed record is opened
    /// (``RecordReader/opened(_:header:key:keyBytes:_:)``); its expiry is judged at `now`, or while
    /// `now` is NaN, by the clock, read into `now` only for a record that can expire (on Linux
    /// `Date()` is a large share of a cached read); an expired record is dealt with as `expired`
    /// says; a live one (or, with ``ExpiredRecords/include``, any) goes to `found`, whose bytes
    /// are valid only inside it. An expired record is purged after LevelDB's buffer is freed,
    /// through the write funnel.
    ///
    /// `found` fills its caller's locals and returns nothing: an entry returned through these
    /// generic closures was copied twice on its way out (about 20 reference-count operations each
    /// time for the benchmark's profile).
    @inline(__always)
    func lookup(
        _ key: String, as type: Any.Type, expired: ExpiredRecords, now: inout Double,
        through snapshot: LevelDBSnapshot?,
        _ found: (_ record: UnsafeRawBufferPointer, _ header: RecordHeader, _ isExpired: Bool) throws -> Void
    ) throws {
        let purge = try withStoredRecord(key, through: snapshot) { keyBytes, record -> Bool in
            guard let record else { return false }
            let header = try reader.header(record, key: key, keyBytes: keyBytes, typeName: String(describing: type))
            let isExpired = now.isNaN
                ? reader.isExpired(header, readingClockInto: &now)
                : header.isExpired(now: now, timeToLive: reader.timeToLive)
            guard isExpired else {
                // A use, for eviction: counted in memory, never written (Eviction/).
                database.didUse(physicalKey: keyBytes)
                try reader.opened(record, header: header, key: key, keyBytes: keyBytes) { try found($0, $1, false) }
                return false
            }
            switch expired {
            case .include:
                try reader.opened(record, header: header, key: key, keyBytes: keyBytes) { try found($0, $1, true) }
                return false
            case .keep:
                return false
            case .purge:
                // Throws for an older record whose unchecked envelope is evidently damaged.
                return try reader.mayPurgeExpired(header, record: record, key: key, keyBytes: keyBytes) && snapshot == nil
            }
        }
        if purge { try space.withPhysicalKey(key) { self.purge($0, now: now) } }
    }

    /// Calls `body` with the LevelDB key of `key` in this scope and the value stored under it
    /// (nil: none), read through `snapshot` if given: the one step every read by key takes to
    /// LevelDB. Nothing is verified here; the bytes are valid only inside `body`.
    @inline(__always)
    func withStoredRecord<Result>(
        _ key: String, through snapshot: LevelDBSnapshot?,
        _ body: (_ keyBytes: UnsafeRawBufferPointer, _ record: UnsafeRawBufferPointer?) throws -> Result
    ) throws -> Result {
        let database = try open()
        // A database with a shared tier asks it on a local miss (`Scope+SharedTier.swift`).
        if let tier = database.sharedTier, snapshot == nil { return try withStoredOrSharedRecord(key, tier: tier, body) }
        return try space.withPhysicalKey(key) { keyBytes in
            try database.run { engine in
                try engine.withValue(forKey: keyBytes, snapshot: snapshot) { try body(keyBytes, $0) }
            }
        }
    }

    /// Whether a live record is stored for `key`, judged from its envelope without verifying a
    /// live record's checksum or decoding anything (see ``RecordState``): a damaged record counts
    /// as present, as a typed read would report it. An expired one is purged as ``lookup`` does.
    func contains(_ key: String) throws -> Bool {
        let snapshot = try self.snapshot
        let now = reader.now()
        let reader = reader
        let (state, purge) = try withStoredRecord(key, through: snapshot) { keyBytes, record -> (RecordState, Bool) in
            let state = reader.state(record, key: keyBytes, now: now)
            // Only a version-3 record may be deleted by a read: an older expired one reads as
            // missing without taking the write gate each time.
            return (state, state == .expired && record?.first == RecordHeader.versionThree && snapshot == nil)
        }
        if purge { try space.withPhysicalKey(key) { self.purge($0, now: now) } }
        return state == .live
    }

    /// Reads the metadata of the live record for `key`, or nil. A shell compiled in the caller's
    /// module, for the caller's type: only there is `Metadata?` free. In ModelStore's own,
    /// unspecialised code every function that holds one looks up `Optional<Metadata>`'s type
    /// metadata on each call, so the read decodes
    /// into a slot of `Metadata` itself.
    @inlinable
    func metadata<Metadata: Decodable>(_ type: Metadata.Type, forKey key: String) throws -> Metadata? {
        try withUnsafeTemporaryAllocation(of: Metadata.self, capacity: 1) { buffer in
            let slot = buffer.baseAddress.unsafelyUnwrapped
            return try decodeMetadata(type, forKey: key, into: slot) ? slot.move() : nil
        }
    }
}

// MARK: - Reads by key

extension Scope {
    /// The live model for `key`, or nil.
    ///
    /// A shell compiled in the caller's module: a model the object cache holds, live, is taken
    /// by the step that is not generic, ``cachedObject(forKey:take:)``, with the one generic
    /// operation, taking the model out of its box, specialised here; anything else goes to
    /// ``readObject(_:forKey:into:)`` (unspecialised, a cached hit paid about a third of its cost in
    /// generic metadata look-ups there: PERFORMANCE.md, "A plain store against 2bd6e82").
    @inlinable
    func object<Value: Decodable>(_ type: Value.Type, forKey key: String) throws -> Value? {
        if ModelStore.isObjectCacheable(type) {
            var cached: Value? = nil
            if try cachedObject(forKey: key, take: { model in
                guard let value = model.model(of: Value.self) else { return false }
                cached = value
                return true
            }) {
                return cached.take()
            }
        }
        // Decoded into a slot of `Value` itself: unspecialised code that holds a `Value?` looks
        // up `Optional<Value>`'s type metadata on each call (see `metadata(_:forKey:)`).
        return try withUnsafeTemporaryAllocation(of: Value.self, capacity: 1) { buffer in
            let slot = buffer.baseAddress.unsafelyUnwrapped
            return try readObject(type, forKey: key, into: slot) ? slot.move() : nil
        }
    }

    /// The hit step of ``object(_:forKey:)``: true once `take` took the model the object cache
    /// holds for `key`, live; false when the cache cannot answer (no cache, a snapshot's scope,
    /// not cached, cached as another type, or expired: a model `take` took is then the caller's to
    /// drop): the caller then reads through ``readObject(_:forKey:into:)``, which finds an expired model
    /// again and purges it. Throws what that read throws first: the scope is usable, then the key.
    ///
    /// The model is copied out as a reader of its shard, and nothing else of the cache's item.
    ///
    /// Two threads' hits write no memory they share: no lock is taken, and neither the database
    /// nor the cache nor the model's box is retained (each retain is a write to a count that every
    /// thread's hits on it hand back and forth between their cores: PERFORMANCE.md, "Two threads'
    /// hits").
    @usableFromInline
    func cachedObject(forKey key: String, take: (UnretainedCachedModel) -> Bool) throws -> Bool {
        // The database is read in place, not taken from `open()`, which returns it retained.
        try checkUsable()
        guard view == nil, let cache = database.unretainedCache else { return false }
        try ModelStore.validate(key: key)
        // The deadline is read in the shard and the clock outside it, only for a record that can
        // expire (as in `lookup`); an expired model, taken, is left to the caller to drop.
        var deadline: Double? = nil
        var taken = false
        var useHash: UInt64 = 0
        // The database holds the cache for as long as this scope is usable.
        cache._withUnsafeGuaranteedRef { cache in
            cache.withItem(key, in: space) { header, value, hash in
                deadline = header.deadline(timeToLive: reader.timeToLive)
                taken = take(value)
                useHash = hash
            }
        }
        guard taken else { return false }
        if let deadline, reader.now() >= deadline { return false }
        database.didUse(hash: useHash)
        return true
    }

    /// ``object(_:forKey:)`` once the cache did not answer: the same steps as
    /// ``entry(_:forKey:includingExpired:)``, decoding straight into `slot`: no entry and no
    /// tuple are built, which saves the generic-metadata lookups unspecialised code pays for them
    /// on every call (PERFORMANCE.md, "Where the time goes"), and no `Value?` is held (its
    /// metadata was looked up twice per read: in here and in the closure that decoded into it).
    /// Returns whether it initialized `slot` (false: no live record); `slot` is left
    /// uninitialized when this returns false or throws.
    @usableFromInline
    func readObject<Value: Decodable>(
        _ type: Value.Type, forKey key: String, into slot: UnsafeMutablePointer<Value>
    ) throws -> Bool {
        let database = try open()
        try ModelStore.validate(key: key)
        // The clock is read only for a record that can expire (see `lookup`).
        var now = Double.nan
        let cacheable = view == nil && ObjectCache.isCacheable(type)
        // The cache is reached through the database's own reference, not a local copy of it: a
        // copy is a retain and a release of the one cache object every thread shares, two atomic
        // writes to one cache line per hit that two threads' hits hand back and forth.
        if cacheable, let item = database.cache?.lookup(key, in: space), let value = item.value.model(of: Value.self) {
            guard reader.isExpired(item.header, readingClockInto: &now) else {
                database.didUse(hash: item.useHash)
                slot.initialize(to: value)
                return true
            }
            try space.withPhysicalKey(key) { purge($0, now: now) }
            return false
        }
        let cache = cacheable ? database.cache : nil
        let generation = cache?.generation(of: key, in: space) ?? 0
        var found = false
        var kept: CachedRecord? = nil
        do {
            try lookup(key, as: type, expired: .purge, now: &now, through: snapshot) { record, header, _ in
                slot.initialize(to: try reader.decodePayload(type, key: key, header: header, record: record))
                found = true
                // Kept for the cache, so an entry served from it still has its metadata and tags.
                if cache != nil { kept = CachedRecord(record, header: header, codec: reader.codec) }
            }
        } catch {
            if found { slot.deinitialize(count: 1) }
            throw error
        }
        if let cache, found, let kept {
            cache.insert(key, in: space, kept.item(slot.pointee), ifGeneration: generation)
        }
        return found
    }

    /// The record for `key` with its metadata, or nil; with `includingExpired`, an expired one
    /// too, marked and never purged (nor answered from or kept in the object cache).
    func entry<Value: Decodable>(
        _ type: Value.Type, forKey key: String, includingExpired: Bool = false
    ) throws -> ModelStore.Entry<Value>? {
        let database = try open()
        try ModelStore.validate(key: key)
        var now = Double.nan
        let cache = view == nil && !includingExpired && ObjectCache.isCacheable(type) ? database.cache : nil
        if let cache, let item = cache.lookup(key, in: space), let value = item.value.model(of: Value.self) {
            guard reader.isExpired(item.header, readingClockInto: &now) else {
                database.didUse(hash: item.useHash)
                return reader.entry(
                    key: key, value: value, header: item.header, byteCount: item.byteCount,
                    metadata: item.metadata, tags: item.tags)
            }
            try space.withPhysicalKey(key) { purge($0, now: now) }
            return nil
        }
        let generation = cache?.generation(of: key, in: space) ?? 0
        var entry: ModelStore.Entry<Value>?
        var header: RecordHeader?
        try lookup(
            key, as: type, expired: includingExpired ? .include : .purge, now: &now, through: snapshot
        ) { record, parsed, isExpired in
            entry = try reader.entry(type, key: key, header: parsed, record: record, isExpired: isExpired)
            header = parsed
        }
        if let cache, let header, let found = entry {
            cache.insert(key, in: space, ObjectCache.Item(found, header: header), ifGeneration: generation)
        }
        // Moved out: returning the variable itself copied the entry and then destroyed the original.
        return entry.take()
    }

    /// Reads the metadata of the live record for `key` and initializes `slot` with it; returns
    /// whether it did (false: no record, expired, or stored without metadata). `slot` is left
    /// uninitialized when this returns false or throws.
    ///
    /// No generic optional or closure result: unspecialised code that holds a `Metadata?` looks
    /// up `Optional<Metadata>`'s type metadata on each call (see ``ModelStore/metadata(_:forKey:)``).
    @usableFromInline
    func decodeMetadata<Metadata: Decodable>(
        _ type: Metadata.Type, forKey key: String, into slot: UnsafeMutablePointer<Metadata>
    ) throws -> Bool {
        var now = Double.nan
        var found = false
        do {
            try lookup(key, as: type, expired: .purge, now: &now, through: snapshot) { record, header, _ in
                guard let codec = header.metadataCodec else { return }
                slot.initialize(
                    to: try StoredMetadata.decode(
                        type, key: key, codec: codec,
                        bytes: UnsafeRawBufferPointer(rebasing: record[header.metadataRange]),
                        storeCodec: reader.codec))
                found = true
            }
        } catch {
            // Nothing throws after the slot is filled today; should that change, nothing leaks.
            if found { slot.deinitialize(count: 1) }
            throw error
        }
        return found
    }

    /// Reads many keys from one consistent view (the scope's snapshot, or an implicit one), in
    /// the order given; missing and expired keys are left out, nothing is purged. Each key is
    /// read by its bytes, so canonically equivalent spellings are the different records they are.
    func entries<Value: Decodable, Keys: Sequence<String>>(
        _ type: Value.Type, forKeys keys: Keys
    ) throws -> [ModelStore.Entry<Value>] {
        let database = try open()
        let view = try snapshot ?? database.run { engine in try engine.makeSnapshot() }
        var now = Double.nan
        var result: [ModelStore.Entry<Value>] = []
        result.reserveCapacity(keys.underestimatedCount)
        for key in keys {
            // Appended in place, not returned through the lookup's closure.
            try lookup(key, as: type, expired: .purge, now: &now, through: view) { record, header, _ in
                result.append(try reader.entry(type, key: key, header: header, record: record))
            }
        }
        return result
    }

    /// ``entries(_:forKeys:)`` as a dictionary. Swift's `String` keys are equal when they are
    /// canonically equivalent, so of two such spellings the first one in `keys` that has a
    /// record wins, with its own value: the result never pairs one spelling with another's value.
    func objects<Value: Decodable, Keys: Sequence<String>>(
        _ type: Value.Type, forKeys keys: Keys
    ) throws -> [String: Value] {
        var result: [String: Value] = [:]
        for entry in try entries(type, forKeys: keys) where result[entry.key] == nil {
            result[entry.key] = entry.value
        }
        return result
    }
}

/// What the object cache keeps of a record beside its decoded model, read while LevelDB's buffer
/// is still valid.
struct CachedRecord {
    let header: RecordHeader
    let byteCount: Int
    let metadata: StoredMetadata?
    let tags: [String]

    init(_ record: UnsafeRawBufferPointer, header: RecordHeader, codec: any ModelCodec) {
        self.header = header
        byteCount = record.count
        metadata = StoredMetadata(record: record, header: header, storeCodec: codec)
        tags = TagIndex.tags(of: record, header: header)
    }

    /// The cache item for `value`, the model this record decoded to.
    func item<Value>(_ value: Value) -> ObjectCache.Item {
        ObjectCache.Item(value: value, header: header, byteCount: byteCount, metadata: metadata, tags: tags)
    }
}
