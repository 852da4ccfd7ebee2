internal import CLevelDB

/// The one owner of an open `leveldb_t` and of every C object created from it.
///
/// LevelDB's database object is thread-safe, so calls run concurrently, each admitted by a
/// ``CallGate`` (no shared write per call, so threads calling at once do not contend).
/// ``close()`` closes the gate: it waits for calls in flight, releases every snapshot and
/// iterator still alive (LevelDB must never see them after `leveldb_close`), then closes the
/// database and frees the options that own the cache and filter policy. Any later call throws
/// ``EngineClosed``.
final class LevelDB: @unchecked Sendable {
    // @unchecked: `handle` is written only by init and by close() after the gate has drained
    // every call, and read only inside a call the gate admitted; `children` is only touched
    // under `childrenLock`; LevelDB's database object is itself thread-safe.

    /// The directory LevelDB keeps its files in.
    let path: String

    private let gate = CallGate()
    /// Serialises ``close()`` calls: the first one closes, the others wait for it.
    private let closeLock = Lock()
    private var handle: OpaquePointer?
    private var openOptions: LevelDBOpenOptions?
    private let readOptions: OpaquePointer
    /// Whether reads, snapshots and iterators verify block checksums.
    let verifiesChecksums: Bool
    private let asyncWriteOptions: OpaquePointer
    private let syncWriteOptions: OpaquePointer

    private let childrenLock = Lock()
    private var children: [UInt64: Child] = [:]
    private var nextChildID: UInt64 = 0

    /// A C object derived from the database that must be freed before it closes.
    private enum Child {
        case snapshot(OpaquePointer)
        case iterator(OpaquePointer)
    }

    /// Opens (and, if `createIfMissing`, creates) the database at `path`.
    init(path: String, options settings: EngineOptions, createIfMissing: Bool = true) throws(LevelDBFailure) {
        let openOptions = LevelDBOpenOptions(settings, createIfMissing: createIfMissing)
        handle = try withLevelDBErrorPointer { leveldb_open(openOptions.options, path, $0) }
        self.path = path
        self.openOptions = openOptions
        verifiesChecksums = settings.verifiesChecksums
        readOptions = leveldb_readoptions_create()
        // Verify block checksums on every read: without it a damaged table block that still
        // decompresses (or was stored uncompressed) is returned as a wrong value.
        leveldb_readoptions_set_verify_checksums(readOptions, settings.verifiesChecksums ? 1 : 0)
        asyncWriteOptions = leveldb_writeoptions_create()
        syncWriteOptions = leveldb_writeoptions_create()
        leveldb_writeoptions_set_sync(syncWriteOptions, 1)
    }

    deinit {
        close()
        leveldb_readoptions_destroy(readOptions)
        leveldb_writeoptions_destroy(asyncWriteOptions)
        leveldb_writeoptions_destroy(syncWriteOptions)
    }

    /// Whether the database is still open.
    var isOpen: Bool {
        !gate.isClosed
    }

    /// Closes the database after calls in flight finish. Safe to call more than once.
    func close() {
        closeLock.withLock {
            guard let db = handle else { return }
            gate.close()
            let orphans = childrenLock.withLock {
                defer { children.removeAll() }
                return Array(children.values)
            }
            for child in orphans {
                switch child {
                case .snapshot(let snapshot): leveldb_release_snapshot(db, snapshot)
                case .iterator(let iterator): leveldb_iter_destroy(iterator)
                }
            }
            leveldb_close(db)
            handle = nil
            openOptions = nil  // only now may the cache and filter policy go
        }
    }

    /// Runs `body` with the open database, holding it open for the duration.
    @inline(__always)
    func withHandle<Result>(_ body: (OpaquePointer) throws -> Result) throws -> Result {
        let result: Result? = try gate.withCall {
            guard let db = handle else { throw EngineClosed() }
            return try body(db)
        }
        guard let result else { throw EngineClosed() }
        return result
    }

    // MARK: - Reads and writes

    /// Calls `body` with the value stored for `key` (nil if absent), read through `snapshot`
    /// if given. The bytes are valid only inside `body`.
    @inline(__always)
    func withValue<Result>(
        forKey key: UnsafeRawBufferPointer,
        snapshot: LevelDBSnapshot? = nil,
        _ body: (UnsafeRawBufferPointer?) throws -> Result
    ) throws -> Result {
        try withHandle { db in
            var length = 0
            let options = snapshot?.readOptions ?? readOptions
            let value = try withLevelDBErrorPointer {
                leveldb_get(db, options, key.baseAddress?.assumingMemoryBound(to: CChar.self), key.count, &length, $0)
            }
            guard let value else { return try body(nil) }
            defer { leveldb_free(value) }
            return try body(UnsafeRawBufferPointer(start: value, count: length))
        }
    }

    /// Stores `value` under `key`.
    func put(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer, sync: Bool) throws {
        try withHandle { db in
            try withLevelDBErrorPointer {
                leveldb_put(
                    db, sync ? syncWriteOptions : asyncWriteOptions,
                    key.baseAddress?.assumingMemoryBound(to: CChar.self), key.count,
                    value.baseAddress?.assumingMemoryBound(to: CChar.self), value.count, $0)
            }
        }
    }

    /// Removes `key`; removing an absent key succeeds.
    func delete(key: UnsafeRawBufferPointer, sync: Bool) throws {
        try withHandle { db in
            try withLevelDBErrorPointer {
                leveldb_delete(
                    db, sync ? syncWriteOptions : asyncWriteOptions,
                    key.baseAddress?.assumingMemoryBound(to: CChar.self), key.count, $0)
            }
        }
    }

    /// Applies every operation in `batch` atomically, in one `leveldb_write`.
    func write(_ batch: LevelDBWriteBatch, sync: Bool) throws {
        try withHandle { db in
            try withLevelDBErrorPointer {
                leveldb_write(db, sync ? syncWriteOptions : asyncWriteOptions, batch.handle, $0)
            }
        }
    }

    // MARK: - Diagnostics and maintenance

    /// The value of a LevelDB property such as `leveldb.stats`, or nil if LevelDB does not know it.
    func property(_ name: String) throws -> String? {
        try withHandle { db in
            guard let value = leveldb_property_value(db, name) else { return nil }
            defer { leveldb_free(value) }
            return String(cString: value)
        }
    }

    /// LevelDB's estimate of the bytes on disk used by keys in `[start, limit)`.
    func approximateSize(start: [UInt8], limit: [UInt8]) throws -> UInt64 {
        try withHandle { db in
            var size: UInt64 = 0
            start.withUnsafeBufferPointer { startBuffer in
                limit.withUnsafeBufferPointer { limitBuffer in
                    startBuffer.withMemoryRebound(to: CChar.self) { startChars in
                        limitBuffer.withMemoryRebound(to: CChar.self) { limitChars in
                            var startPointer: UnsafePointer<CChar>? = startChars.baseAddress
                            var limitPointer: UnsafePointer<CChar>? = limitChars.baseAddress
                            var startLength = start.count
                            var limitLength = limit.count
                            leveldb_approximate_sizes(
                                db, 1, &startPointer, &startLength, &limitPointer, &limitLength, &size)
                        }
                    }
                }
            }
            return size
        }
    }

    /// Compacts the key range `[start, limit]` (nil means the open end), so space used by
    /// deleted and overwritten records is given back to the file system.
    func compact(start: [UInt8]?, limit: [UInt8]?) throws {
        try withHandle { db in
            func call(_ s: UnsafePointer<CChar>?, _ sl: Int, _ l: UnsafePointer<CChar>?, _ ll: Int) {
                leveldb_compact_range(db, s, sl, l, ll)
            }
            Self.withOptionalBytes(start) { s, sl in
                Self.withOptionalBytes(limit) { l, ll in call(s, sl, l, ll) }
            }
        }
    }

    /// A key after every key a database holds (no system record kind is 0xFF): compacting the
    /// range of it alone compacts no table, after LevelDB has written its memtable out.
    static let flushOnlyKey = [UInt8](repeating: 0xFF, count: 16)

    /// Writes the memtable into a table file (a compaction of a range past every key), so the
    /// writes made until now are out of the log, and those after it start a new memtable.
    func flushMemtable() throws {
        try compact(start: Self.flushOnlyKey, limit: Self.flushOnlyKey)
    }

    private static func withOptionalBytes<R>(
        _ bytes: [UInt8]?, _ body: (UnsafePointer<CChar>?, Int) -> R
    ) -> R {
        guard let bytes else { return body(nil, 0) }
        return bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { body($0.baseAddress, $0.count) }
        }
    }

    // MARK: - Snapshots and iterators

    /// Takes a snapshot of the database's current state.
    func makeSnapshot() throws -> LevelDBSnapshot {
        try withHandle { db in
            guard let snapshot = leveldb_create_snapshot(db) else { throw EngineClosed() }
            let id = register(.snapshot(snapshot))
            return LevelDBSnapshot(database: self, id: id, snapshot: snapshot)
        }
    }

    /// Creates an iterator over the database, reading through `snapshot` if given.
    func makeIterator(snapshot: LevelDBSnapshot?, fillCache: Bool = true) throws -> LevelDBIterator {
        try withHandle { db in
            let options = leveldb_readoptions_create()!
            defer { leveldb_readoptions_destroy(options) }  // LevelDB copies read options
            if let snapshot { leveldb_readoptions_set_snapshot(options, snapshot.snapshot) }
            leveldb_readoptions_set_fill_cache(options, fillCache ? 1 : 0)
            leveldb_readoptions_set_verify_checksums(options, verifiesChecksums ? 1 : 0)
            guard let iterator = leveldb_create_iterator(db, options) else { throw EngineClosed() }
            let id = register(.iterator(iterator))
            return LevelDBIterator(database: self, id: id, iterator: iterator)
        }
    }

    /// Snapshots and iterators not yet released, for tests and diagnostics.
    var liveChildCount: Int {
        childrenLock.withLock { children.count }
    }

    private func register(_ child: Child) -> UInt64 {
        childrenLock.withLock {
            nextChildID += 1
            children[nextChildID] = child
            return nextChildID
        }
    }

    /// Frees a snapshot or iterator whose owner is done with it, unless ``close()`` already did.
    func releaseChild(id: UInt64) {
        _ = gate.withCall {
            guard let db = handle else { return }  // close() freed it already
            let child = childrenLock.withLock { children.removeValue(forKey: id) }
            switch child {
            case .snapshot(let snapshot): leveldb_release_snapshot(db, snapshot)
            case .iterator(let iterator): leveldb_iter_destroy(iterator)
            case nil: break
            }
        }
    }
}

/// Thrown by the engine when the database was closed under a caller.
struct EngineClosed: Error {}
