internal import CLevelDB

/// Owns one `leveldb_snapshot_t` and the read options that point at it.
///
/// The snapshot keeps its ``LevelDB`` object alive. If the database is closed first, the
/// database releases the C snapshot itself, and reads through this object throw
/// ``EngineClosed`` instead of touching freed memory.
final class LevelDBSnapshot: @unchecked Sendable {
    // @unchecked: immutable after init; the C snapshot is only read through `database`,
    // which checks under its lock that it is still open. LevelDB snapshots are thread-safe.
    let database: LevelDB
    let readOptions: OpaquePointer
    let snapshot: OpaquePointer
    private let id: UInt64

    init(database: LevelDB, id: UInt64, snapshot: OpaquePointer) {
        self.database = database
        self.id = id
        self.snapshot = snapshot
        readOptions = leveldb_readoptions_create()
        leveldb_readoptions_set_snapshot(readOptions, snapshot)
        // As LevelDB.readOptions: no wrong values.
        leveldb_readoptions_set_verify_checksums(readOptions, database.verifiesChecksums ? 1 : 0)
    }

    deinit {
        database.releaseChild(id: id)
        leveldb_readoptions_destroy(readOptions)
    }
}

/// Owns one `leveldb_iterator_t`.
///
/// Like LevelDB's iterators, it is not thread-safe: use it from one thread at a time. Every
/// step checks, under the database's lock, that the database is still open.
final class LevelDBIterator {
    let database: LevelDB
    private let iterator: OpaquePointer
    private let id: UInt64

    init(database: LevelDB, id: UInt64, iterator: OpaquePointer) {
        self.database = database
        self.id = id
        self.iterator = iterator
    }

    deinit {
        database.releaseChild(id: id)
    }

    /// Positions the iterator at the first key at or after `key`.
    func seek(to key: [UInt8]) throws {
        try database.withHandle { _ in
            key.withUnsafeBufferPointer { buffer in
                buffer.withMemoryRebound(to: CChar.self) { leveldb_iter_seek(iterator, $0.baseAddress, $0.count) }
            }
        }
    }

    /// Positions the iterator at the first key.
    func seekToFirst() throws {
        try database.withHandle { _ in leveldb_iter_seek_to_first(iterator) }
    }

    /// Positions the iterator at the last key.
    func seekToLast() throws {
        try database.withHandle { _ in leveldb_iter_seek_to_last(iterator) }
    }

    /// Moves to the next key.
    func next() throws {
        try database.withHandle { _ in leveldb_iter_next(iterator) }
    }

    /// Moves to the previous key.
    func previous() throws {
        try database.withHandle { _ in leveldb_iter_prev(iterator) }
    }

    /// Calls `body` with up to `limit` records from the current position onwards, moving
    /// forward, under one acquisition of the database's lock (a sweep's inner loop). Stops
    /// early when `body` returns false. Returns how many records `body` saw and, if it saw
    /// `limit` of them, a copy of the last one's key: where the next chunk resumes.
    ///
    /// LevelDB's error is checked once, after the loop, not on every step as in
    /// ``withCurrent(_:)``: the iterator keeps the first error it meets until it is destroyed,
    /// so the final check sees any block skipped during the chunk, and the caller must treat
    /// what `body` saw as provisional, committing nothing of a chunk that throws (the sweep
    /// writes its deletions only after this returns). That saves a call into LevelDB per record.
    func scanForward(
        limit: Int, _ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> Bool
    ) throws -> (seen: Int, lastKey: [UInt8]?) {
        try database.withHandle { _ in
            var seen = 0
            var lastKey: [UInt8]? = nil
            while seen < limit, leveldb_iter_valid(iterator) != 0 {
                let (keyBytes, value) = currentRecord()
                seen += 1
                let proceed = try body(keyBytes, value)
                // Copied once per chunk, not per record: the bytes die when the iterator moves.
                if seen == limit { lastKey = Array(keyBytes) }
                leveldb_iter_next(iterator)
                if !proceed { break }
            }
            try withLevelDBErrorPointer { leveldb_iter_get_error(iterator, $0) }
            return (seen, lastKey)
        }
    }

    /// What a ``walk(reverse:_:)`` visitor wants after seeing a record.
    enum Visit {
        /// Step past the record and visit the next one (an expired record, say).
        case skip
        /// Step past the record and stop: the caller has what it wanted.
        case take
        /// Stop where the iterator is: the walk has reached the end of its range.
        case end
    }

    /// Calls `body` with each record from the current position, stepping forward (or, with
    /// `reverse`, backward) until `body` returns ``Visit/take`` or ``Visit/end``, all under
    /// one acquisition of the database's lock. Returns true if `body` took a record, false
    /// at the end of the range or of the database.
    ///
    /// Not generic, so a generic caller's per-record path pays for no generic metadata: the
    /// cursor's inner loop.
    ///
    /// - Throws: ``EngineClosed``, a ``LevelDBFailure`` LevelDB met while iterating, or what
    ///   `body` throws (the iterator then stays on the record `body` threw for).
    func walk(
        reverse: Bool, _ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> Visit
    ) throws -> Bool {
        try database.withHandle { _ in
            while true {
                // As in withCurrent: a block LevelDB could not read leaves only an error behind.
                try withLevelDBErrorPointer { leveldb_iter_get_error(iterator, $0) }
                guard leveldb_iter_valid(iterator) != 0 else { return false }
                let (key, value) = currentRecord()
                let visit = try body(key, value)
                if visit == .end { return false }
                if reverse { leveldb_iter_prev(iterator) } else { leveldb_iter_next(iterator) }
                if visit == .take { return true }
            }
        }
    }

    /// Calls `body` with the current key and value if the iterator is positioned on a
    /// record, or returns nil at the end. The bytes are valid only inside `body`.
    ///
    /// - Throws: ``EngineClosed``, or a ``LevelDBFailure`` LevelDB met while iterating.
    func withCurrent<Result>(
        _ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> Result
    ) throws -> Result? {
        try database.withHandle { _ in
            // Checked on every step, not only at the end: LevelDB's iterator skips a block it
            // cannot read and only remembers the error, so a walk over a key range that ends
            // before the database does would otherwise miss the damaged block's records silently.
            try withLevelDBErrorPointer { leveldb_iter_get_error(iterator, $0) }
            guard leveldb_iter_valid(iterator) != 0 else { return nil }
            let (key, value) = currentRecord()
            return try body(key, value)
        }
    }

    /// The key and value the iterator is on; valid until it moves. Call only under the
    /// database's lock, on a valid iterator.
    @inline(__always)
    private func currentRecord() -> (key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) {
        var keyLength = 0
        var valueLength = 0
        let key = leveldb_iter_key(iterator, &keyLength)
        let value = leveldb_iter_value(iterator, &valueLength)
        return (UnsafeRawBufferPointer(start: key, count: keyLength), UnsafeRawBufferPointer(start: value, count: valueLength))
    }
}
