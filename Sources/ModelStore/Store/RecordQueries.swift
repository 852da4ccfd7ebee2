/// Enumeration, counting and batch reads, shared by ``ModelStore`` (reading the live
/// database) and ``ModelStore/Snapshot`` (reading a fixed view), for one key space (the
/// default collection or a named one): every range is mapped into the space's physical range,
/// every key returned has the space's prefix taken off.
struct RecordQueries {
    let database: OpenDatabase
    let snapshot: LevelDBSnapshot?
    let reader: RecordReader
    var space: KeySpace = .default

    func keys(in range: KeyRange, reverse: Bool, limit: Int?) throws -> Cursor<String> {
        let now = reader.now()
        let timeToLive = reader.timeToLive
        let space = space
        return try Cursor(
            database: database, snapshot: snapshot, range: space.physical(range), reverse: reverse, limit: limit
        ) { key, record in
            RecordState(record, key: key, now: now, timeToLive: timeToLive) == .live
                ? space.key(fromPhysical: key) : nil
        }
    }

    func entries<Value: Decodable>(
        _ type: Value.Type, in range: KeyRange, reverse: Bool, limit: Int?
    ) throws -> Cursor<ModelStore.Entry<Value>> {
        let now = reader.now()
        let reader = reader
        let space = space
        return try Cursor(
            database: database, snapshot: snapshot, range: space.physical(range), reverse: reverse, limit: limit
        ) { keyBytes, record in
            let key = space.key(fromPhysical: keyBytes)
            let header = try reader.header(record, key: key, keyBytes: keyBytes, type: type)
            guard !header.isExpired(now: now, timeToLive: reader.timeToLive) else {
                _ = try reader.mayPurgeExpired(header, key: key, keyBytes: keyBytes)  // throws for a damaged older envelope
                return nil
            }
            return try reader.entry(type, key: key, header: header, record: record)
        }
    }

    /// Counts live records in `range` from their headers alone.
    func count(in range: KeyRange) throws -> Int {
        let now = reader.now()
        let timeToLive = reader.timeToLive
        let cursor = try Cursor(
            database: database, snapshot: snapshot, range: space.physical(range), reverse: false, limit: nil
        ) {
            key, record in RecordState(record, key: key, now: now, timeToLive: timeToLive) == .live ? () : nil
        }
        var count = 0
        while try cursor.next() != nil { count += 1 }
        return count
    }

    /// Reads many keys from one consistent view, in the order given; missing and expired
    /// keys are left out. Each key is looked up by its bytes, so canonically equivalent
    /// spellings of a key are read as the different records they are.
    func entries<Value: Decodable, Keys: Sequence<String>>(
        _ type: Value.Type, forKeys keys: Keys
    ) throws -> [ModelStore.Entry<Value>] {
        let view = try snapshot ?? database.run { engine in try engine.makeSnapshot() }
        let now = reader.now()
        var result: [ModelStore.Entry<Value>] = []
        result.reserveCapacity(keys.underestimatedCount)
        for key in keys {
            // Appended in place, not returned through the engine's closures (see entry(_:forKey:)).
            try space.withPhysicalKey(key) { keyBytes in
                try database.run { engine in
                    try engine.withValue(forKey: keyBytes, snapshot: view) { record in
                        guard let record else { return }
                        let header = try reader.header(
                            record, key: key, keyBytes: UnsafeRawBufferPointer(keyBytes), type: type)
                        guard !header.isExpired(now: now, timeToLive: reader.timeToLive) else {
                            _ = try reader.mayPurgeExpired(header, key: key, keyBytes: keyBytes)  // throws for a damaged older envelope
                            return
                        }
                        result.append(try reader.entry(type, key: key, header: header, record: record))
                    }
                }
            }
        }
        return result
    }

    /// The live record for `key` in the view, without touching the object cache or purging
    /// (a snapshot's reads).
    func entry<Value: Decodable>(_ type: Value.Type, forKey key: String) throws -> ModelStore.Entry<Value>? {
        let reader = reader
        let now = reader.now()
        // Filled in place, not returned through the engine's generic closures, which copied it twice (see
        // ModelStore's entry(_:forKey:space:)).
        var entry: ModelStore.Entry<Value>?
        try space.withPhysicalKey(key) { keyBytes in
            try database.run { engine in
                try engine.withValue(forKey: keyBytes, snapshot: snapshot) { record in
                    guard let record else { return }
                    let header = try reader.header(record, key: key, keyBytes: keyBytes, type: type)
                    guard !header.isExpired(now: now, timeToLive: reader.timeToLive) else {
                        _ = try reader.mayPurgeExpired(header, key: key, keyBytes: keyBytes)  // throws for a damaged older envelope
                        return
                    }
                    entry = try reader.entry(type, key: key, header: header, record: record)
                }
            }
        }
        return entry.take()
    }

    /// Whether the view holds a live record for `key`, judged from its header (see ``RecordState``).
    func contains(_ key: String) throws -> Bool {
        let now = reader.now()
        let timeToLive = reader.timeToLive
        return try space.withPhysicalKey(key) { keyBytes in
            try database.run { engine in
                try engine.withValue(forKey: keyBytes, snapshot: snapshot) {
                    RecordState($0, key: keyBytes, now: now, timeToLive: timeToLive) == .live
                }
            }
        }
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

extension ModelStore {
    var queries: RecordQueries {
        get throws(ModelStoreError) {
            RecordQueries(database: try openDatabase(), snapshot: nil, reader: reader)
        }
    }

    /// Returns a cursor over the keys of live records in `range`, in key order.
    ///
    /// ```swift
    /// for key in try store.keys(in: .prefix("feed:")).collect() { print(key) }
    ///
    /// let newestFirst = try store.keys(reverse: true, limit: 10)
    /// while let key = try newestFirst.next() { print(key) }
    /// ```
    ///
    /// Expired records are skipped (not removed); models are not decoded.
    ///
    /// - Parameters:
    ///   - range: Which keys: ``KeyRange/all`` (the default), a ``KeyRange/prefix(_:)`` or a
    ///     ``KeyRange/range(from:to:)``.
    ///   - reverse: Whether to walk from the last key to the first.
    ///   - limit: The most keys to return; nil for no limit.
    /// - Throws: ``ModelStoreError/closed(path:)``.
    public func keys(in range: KeyRange = .all, reverse: Bool = false, limit: Int? = nil) throws -> Cursor<String> {
        try queries.keys(in: range, reverse: reverse, limit: limit)
    }

    /// Returns a cursor over the live records in `range`, decoded as `type`, with their
    /// metadata, in key order.
    ///
    /// ```swift
    /// let users = try store.entries(User.self, in: .prefix("user:"))
    /// while let entry = try users.next() {
    ///     print(entry.key, entry.value.userName, entry.storedAt)
    /// }
    /// ```
    ///
    /// - Parameters: As ``keys(in:reverse:limit:)``.
    /// - Throws: ``ModelStoreError/closed(path:)``; the cursor's ``Cursor/next()`` throws
    ///   ``ModelStoreError/decodingFailed(key:type:message:)`` for a record of another type and
    ///   ``ModelStoreError/corrupted(path:message:)`` naming the key for a record that fails its
    ///   checksum, and goes on after either when called again.
    public func entries<Value: Decodable>(
        _ type: Value.Type, in range: KeyRange = .all, reverse: Bool = false, limit: Int? = nil
    ) throws -> Cursor<Entry<Value>> {
        try queries.entries(type, in: range, reverse: reverse, limit: limit)
    }

    /// The number of live (unexpired) records in `range`. Reads headers only.
    ///
    /// - Complexity: O(*n*) in the records in `range`.
    public func count(in range: KeyRange = .all) throws -> Int {
        try queries.count(in: range)
    }

    /// Reads the models for many keys from one consistent view of the database.
    ///
    /// ```swift
    /// let users = try store.objects(User.self, forKeys: ["u1", "u2", "u3"])  // [String: User]
    /// ```
    ///
    /// Missing and expired keys are left out of the result.
    ///
    /// Keys are records by their bytes, but a Swift dictionary treats canonically equivalent
    /// strings ("é" as U+00E9 and as "e" plus U+0301) as one key. If `keys` holds two such
    /// spellings, the first of them that has a record wins, with its own value. To read
    /// every spelling, use ``entries(_:forKeys:)``.
    ///
    /// - Throws: ``ModelStoreError/invalidKey(key:reason:)``,
    ///   ``ModelStoreError/decodingFailed(key:type:message:)``.
    public func objects<Value: Decodable, Keys: Sequence<String>>(
        _ type: Value.Type, forKeys keys: Keys
    ) throws -> [String: Value] {
        try queries.objects(type, forKeys: keys)
    }

    /// Reads the records for many keys from one consistent view of the database, in the order
    /// of `keys`, with their metadata.
    ///
    /// ```swift
    /// for entry in try store.entries(User.self, forKeys: ["u1", "u2"]) {
    ///     print(entry.key, entry.value.userName)
    /// }
    /// ```
    ///
    /// Missing and expired keys are left out. Each key is read by its bytes, as LevelDB
    /// stores it, so unlike ``objects(_:forKeys:)`` two canonically equivalent spellings of a
    /// key each return their own record; a key given twice is returned twice.
    ///
    /// - Throws: As ``objects(_:forKeys:)``.
    public func entries<Value: Decodable, Keys: Sequence<String>>(
        _ type: Value.Type, forKeys keys: Keys
    ) throws -> [Entry<Value>] {
        try queries.entries(type, forKeys: keys)
    }

    /// LevelDB's estimate of the bytes the records in `range` take on disk (after
    /// compression).
    ///
    /// It counts only LevelDB's sorted tables, so writes still in the in-memory write buffer
    /// are not counted: on a new database it is 0 until the buffer is flushed, which happens
    /// when it reaches ``Configuration/writeBufferSize`` (16 MiB by default), on
    /// ``compact(in:)``, or when the database is next opened.
    public func approximateSize(in range: KeyRange = .all) throws -> UInt64 {
        let database = try openDatabase()
        let limit = range.upperBound ?? [UInt8](repeating: 0xFF, count: Self.maximumKeyLength + 1)
        return try database.run { engine in try engine.approximateSize(start: range.lowerBound, limit: limit) }
    }

    /// LevelDB's statistics report (the `leveldb.stats` property): files and sizes per
    /// level and compaction totals, for diagnostics.
    public func statistics() throws -> String {
        try property(named: "leveldb.stats") ?? ""
    }

    /// A LevelDB property, such as `leveldb.stats`, `leveldb.sstables`,
    /// `leveldb.approximate-memory-usage` or `leveldb.num-files-at-level0`; nil if LevelDB
    /// does not know the name.
    public func property(named name: String) throws -> String? {
        let database = try openDatabase()
        return try database.run { engine in try engine.property(name) }
    }

    /// Compacts the records in `range`, so space held by removed and overwritten records is
    /// given back to the file system. It can take a while on a large database.
    public func compact(in range: KeyRange = .all) throws {
        let database = try openDatabase()
        try database.run { engine in
            try engine.compact(start: range.lowerBound.isEmpty ? nil : range.lowerBound, limit: range.upperBound)
        }
    }
}
