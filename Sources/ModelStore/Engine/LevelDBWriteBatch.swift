internal import CLevelDB

/// Owns one `leveldb_writebatch_t`: puts and deletes that ``LevelDB/write(_:sync:)`` applies
/// atomically. Not thread-safe, like LevelDB's own write batch.
final class LevelDBWriteBatch {
    let handle: OpaquePointer
    /// Operations added so far.
    private(set) var count = 0
    /// Bytes of keys and values added so far, to keep batches within LevelDB's 32-bit limits.
    private(set) var byteCount = 0

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
    }
}
