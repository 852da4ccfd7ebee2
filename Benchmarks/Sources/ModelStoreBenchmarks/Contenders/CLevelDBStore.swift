import CLevelDBBaseline
import Foundation
import ModelStore

/// The baseline: Swift calling LevelDB's C API directly, with LevelDB's default options.
///
/// A record is the encoded model followed by its 8-byte write time (a little-endian
/// Float64), the least a store with expiry must keep. Reads decode straight from the buffer
/// LevelDB returns, then free it. With `codec == nil` it stores pre-encoded bytes and reads
/// without decoding: the engine's floor.
final class CLevelDBStore<Codec: ModelCodec>: BenchmarkStore {
    private let db: OpaquePointer
    private let options: CLevelDBOptions
    private let readOptions = leveldb_readoptions_create()!
    private let writeOptions = leveldb_writeoptions_create()!
    private let codec: Codec?
    private let encodedPool: [[UInt8]]
    private var scratch: [UInt8] = []

    /// Opens (creating) the database at `path`.
    ///
    /// - Parameters:
    ///   - codec: The codec, or nil to store `encodedPool` entries as they are.
    ///   - encodedPool: Pre-encoded records, indexed by profile id modulo the pool size.
    init(path: String, codec: Codec?, encodedPool: [[UInt8]] = [], tuning: LevelDBTuning? = nil) throws {
        options = CLevelDBOptions(tuning)
        let options = options
        let db: OpaquePointer? = try withCLevelDBError { leveldb_open(options.options, path, $0) }
        guard let db else { throw CLevelDBError(description: "leveldb_open returned no database for \(path)") }
        self.db = db
        self.codec = codec
        self.encodedPool = encodedPool
        scratch.reserveCapacity(4_096)
        if tuning?.verifiesChecksums == true { leveldb_readoptions_set_verify_checksums(readOptions, 1) }
    }

    deinit {
        leveldb_readoptions_destroy(readOptions)
        leveldb_writeoptions_destroy(writeOptions)
    }

    func close() throws {
        leveldb_close(db)
    }

    // MARK: - Records

    /// Calls `body` with the record for `profile`: its encoding and write time, assembled in
    /// a buffer the store reuses, so the only allocations are the codec's own. The codec
    /// appends straight into the buffer when it can (``ModelCodec/encode(_:appendingTo:)``;
    /// JSON's default goes through `Data`).
    @inline(__always)
    private func withRecord<Result>(
        _ profile: Profile, expired: Bool, _ body: (UnsafeRawBufferPointer) throws -> Result
    ) throws -> Result {
        let storedAt = Date().timeIntervalSinceReferenceDate + clockOffset + (expired ? expiredOffset : 0)
        scratch.removeAll(keepingCapacity: true)
        if let codec {
            try codec.encode(profile, appendingTo: &scratch)
        } else {
            scratch.append(contentsOf: encodedPool[profile.id % encodedPool.count])
        }
        withUnsafeBytes(of: storedAt.bitPattern.littleEndian) { scratch.append(contentsOf: $0) }
        return try scratch.withUnsafeBytes(body)
    }

    @inline(__always)
    private func use(_ record: UnsafeRawBufferPointer) throws {
        let payload = UnsafeRawBufferPointer(rebasing: record[..<(record.count - 8)])
        if let codec {
            blackHole(try codec.decode(Profile.self, fromBytes: payload))
        } else {
            blackHole(payload.first)
        }
    }

    // MARK: - BenchmarkStore

    func put(_ profile: Profile, forKey key: String, expired: Bool) throws {
        var key = key
        try key.withUTF8 { keyBytes in
            try withRecord(profile, expired: expired) { record in
                try withCLevelDBError {
                    leveldb_put(
                        db, writeOptions, keyBytes.baseAddress, keyBytes.count,
                        record.baseAddress, record.count, $0)
                }
            }
        }
    }

    /// ``put(_:forKey:expired:)`` of a pre-encoded record from several threads at once: the
    /// record is built in a local array instead of the store's one scratch buffer (LevelDB's
    /// database object is thread-safe; this store's buffer is not).
    func putPreEncodedFromAnyThread(_ profile: Profile, forKey key: String) throws {
        var record = encodedPool[profile.id % encodedPool.count]
        withUnsafeBytes(of: Date().timeIntervalSinceReferenceDate.bitPattern.littleEndian) {
            record.append(contentsOf: $0)
        }
        var key = key
        try key.withUTF8 { keyBytes in
            try record.withUnsafeBytes { value in
                try withCLevelDBError {
                    leveldb_put(db, writeOptions, keyBytes.baseAddress, keyBytes.count, value.baseAddress, value.count, $0)
                }
            }
        }
    }

    func importProfiles<Profiles: Sequence<Profile>>(_ profiles: Profiles, batchSize: Int) async throws {
        let batch = leveldb_writebatch_create()
        defer { leveldb_writebatch_destroy(batch) }
        var pending = 0
        for profile in profiles {
            var key = ProfileCorpus.key(profile.id)
            try key.withUTF8 { keyBytes in
                try withRecord(profile, expired: false) { record in
                    leveldb_writebatch_put(batch, keyBytes.baseAddress, keyBytes.count, record.baseAddress, record.count)
                }
            }
            pending += 1
            if pending == batchSize {
                try withCLevelDBError { leveldb_write(db, writeOptions, batch, $0) }
                leveldb_writebatch_clear(batch)
                pending = 0
            }
        }
        if pending > 0 {
            try withCLevelDBError { leveldb_write(db, writeOptions, batch, $0) }
        }
    }

    func get(_ key: String) throws -> Bool {
        var key = key
        return try key.withUTF8 { keyBytes in
            var length = 0
            let value = try withCLevelDBError {
                leveldb_get(db, readOptions, keyBytes.baseAddress, keyBytes.count, &length, $0)
            }
            guard let value else { return false }
            defer { leveldb_free(value) }
            try use(UnsafeRawBufferPointer(start: value, count: length))
            return true
        }
    }

    func scanAll() throws -> Int {
        let iterator = leveldb_create_iterator(db, readOptions)!
        defer { leveldb_iter_destroy(iterator) }
        var count = 0
        leveldb_iter_seek_to_first(iterator)
        while leveldb_iter_valid(iterator) != 0 {
            var keyLength = 0
            var valueLength = 0
            let key = leveldb_iter_key(iterator, &keyLength)!
            let value = leveldb_iter_value(iterator, &valueLength)!
            blackHole(String(decoding: UnsafeRawBufferPointer(start: key, count: keyLength), as: UTF8.self))
            try use(UnsafeRawBufferPointer(start: value, count: valueLength))
            count += 1
            leveldb_iter_next(iterator)
        }
        try withCLevelDBError { leveldb_iter_get_error(iterator, $0) }
        return count
    }

    /// One pass over the records reading only the write time, deleting expired keys in
    /// batches of 10,000 (ModelStore's chunk size). The iterator keeps its implicit
    /// snapshot, so the deletes never disturb it.
    func removeExpired() throws -> Int {
        let now = Date().timeIntervalSinceReferenceDate + clockOffset
        let readOptions = leveldb_readoptions_create()!
        leveldb_readoptions_set_fill_cache(readOptions, 0)
        let iterator = leveldb_create_iterator(db, readOptions)!
        let batch = leveldb_writebatch_create()
        defer {
            leveldb_writebatch_destroy(batch)
            leveldb_iter_destroy(iterator)
            leveldb_readoptions_destroy(readOptions)
        }
        var removed = 0
        var pending = 0
        leveldb_iter_seek_to_first(iterator)
        while leveldb_iter_valid(iterator) != 0 {
            var valueLength = 0
            let value = UnsafeRawPointer(leveldb_iter_value(iterator, &valueLength)!)
            let bits = value.loadUnaligned(fromByteOffset: valueLength - 8, as: UInt64.self)
            if Double(bitPattern: UInt64(littleEndian: bits)) + recordLifetime <= now {
                var keyLength = 0
                let key = leveldb_iter_key(iterator, &keyLength)
                leveldb_writebatch_delete(batch, key, keyLength)
                pending += 1
                if pending == 10_000 {
                    try withCLevelDBError { leveldb_write(db, writeOptions, batch, $0) }
                    leveldb_writebatch_clear(batch)
                    removed += pending
                    pending = 0
                }
            }
            leveldb_iter_next(iterator)
        }
        try withCLevelDBError { leveldb_iter_get_error(iterator, $0) }
        if pending > 0 {
            try withCLevelDBError { leveldb_write(db, writeOptions, batch, $0) }
            removed += pending
        }
        return removed
    }
}
