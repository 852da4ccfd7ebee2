// MARK: - Ranges: cursors and counts
//
// Walks over a range of the scope's keys, through its snapshot if it has one (else LevelDB's
// implicit one, taken when the cursor starts): every range is mapped into the space's physical
// range, every key returned has the space's prefix taken off, and expired records are skipped,
// never removed.

extension Scope {
    /// A cursor over the keys of live records in `range`, judged from their envelopes.
    func keys(in range: KeyRange, reverse: Bool, limit: Int?) throws -> Cursor<String> {
        let database = try open()
        let now = reader.now()
        let reader = reader
        let space = space
        return try Cursor(
            database: database, snapshot: snapshot, range: space.physical(range), reverse: reverse, limit: limit
        ) { key, record in
            reader.state(record, key: key, now: now) == .live
                ? space.key(fromPhysical: key) : nil
        }
    }

    /// A cursor over the live records in `range`, decoded as `type`. A record that fails its
    /// checksum or does not decode throws from ``Cursor/next()``, which goes on after it.
    func entries<Value: Decodable>(
        _ type: Value.Type, in range: KeyRange, reverse: Bool, limit: Int?
    ) throws -> Cursor<ModelStore.Entry<Value>> {
        let database = try open()
        let now = reader.now()
        let reader = reader
        let space = space
        let useCounts = database.useCounts
        return try Cursor(
            database: database, snapshot: snapshot, range: space.physical(range), reverse: reverse, limit: limit
        ) { keyBytes, record in
            let key = space.key(fromPhysical: keyBytes)
            let header = try reader.header(record, key: key, keyBytes: keyBytes, type: type)
            guard !header.isExpired(now: now, timeToLive: reader.timeToLive) else {
                try reader.checkExpiredEnvelope(header, record: record, key: key, keyBytes: keyBytes)
                return nil
            }
            // A cursor's read is a use too (Eviction/).
            useCounts?.recordUse(KeyHash.physical(keyBytes))
            return try reader.opened(record, header: header, key: key, keyBytes: keyBytes) {
                try reader.entry(type, key: key, header: $1, record: $0)
            }
        }
    }

    /// The number of live records in `range`, from their envelopes alone.
    func count(in range: KeyRange) throws -> Int {
        let database = try open()
        let now = reader.now()
        let reader = reader
        let cursor = try Cursor(
            database: database, snapshot: snapshot, range: space.physical(range), reverse: false, limit: nil
        ) { key, record in
            reader.state(record, key: key, now: now) == .live ? () : nil
        }
        var count = 0
        while try cursor.next() != nil { count += 1 }
        return count
    }
}
