internal import CLevelDB

/// Owns one `leveldb_writebatch_t`: puts and deletes that ``LevelDB/write(_:sync:)`` applies
/// atomically. Not thread-safe, like LevelDB's own write batch.
final class LevelDBWriteBatch {
    let handle: OpaquePointer
    /// Operations added so far.
    private(set) var count = 0
    /// Bytes of keys and values added so far, to keep batches within LevelDB's 32-bit limits.
    private(set) var byteCount = 0
    /// Bytes of the puts of user records (keys below ModelStore's system prefix, 0xFF), keys and
    /// values: what the limits count. Tag-index and index entries, outbox entries and deletes
    /// are not records (counted as records' bytes, a tagged write made the count too high).
    private(set) var recordBytes = 0

    init() {
        handle = leveldb_writebatch_create()
    }

    deinit {
        leveldb_writebatch_destroy(handle)
    }

    func put(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) {
        leveldb_writebatch_put(
            handle,
            key.baseAddress?.assumingMemoryBound(to: CChar.self), key.count,
            value.baseAddress?.assumingMemoryBound(to: CChar.self), value.count)
        count += 1
        byteCount += key.count + value.count
        if Self.isRecordKey(key) { recordBytes += key.count + value.count }
    }

    func delete(key: UnsafeRawBufferPointer) {
        leveldb_writebatch_delete(handle, key.baseAddress?.assumingMemoryBound(to: CChar.self), key.count)
        count += 1
        byteCount += key.count
    }

    func clear() {
        leveldb_writebatch_clear(handle)
        count = 0
        byteCount = 0
        recordBytes = 0
    }

    /// Whether `key` is a user record's: below the system prefix, as `KeySpace.userRecords`.
    @inline(__always)
    static func isRecordKey(_ key: UnsafeRawBufferPointer) -> Bool {
        key.first.map { $0 != KeySpace.systemMarker } ?? true
    }

    /// Calls `body` with the key and bytes (key plus value) of each put of a user record, in the
    /// order they were added: for the limits, which while a pass measures the database must
    /// know where each record of a write falls against its cursor, and what it weighs.
    func forEachRecordPut(_ body: (_ key: UnsafeRawBufferPointer, _ bytes: Int) -> Void) {
        withoutActuallyEscaping(body) { body in
            final class Visitor {
                let body: (UnsafeRawBufferPointer, Int) -> Void
                init(_ body: @escaping (UnsafeRawBufferPointer, Int) -> Void) { self.body = body }
            }
            let visitor = Visitor(body)
            withExtendedLifetime(visitor) {
                leveldb_writebatch_iterate(
                    handle, Unmanaged.passUnretained(visitor).toOpaque(),
                    { state, key, keyLength, _, valueLength in
                        let key = UnsafeRawBufferPointer(start: key, count: keyLength)
                        guard LevelDBWriteBatch.isRecordKey(key) else { return }
                        Unmanaged<Visitor>.fromOpaque(state!).takeUnretainedValue().body(key, keyLength + valueLength)
                    },
                    { _, _, _ in })
            }
        }
    }
}
