internal import CLevelDB

/// LevelDB tuning, as plain values. Built from ``ModelStore/Configuration`` and turned into
/// C options only when a database opens.
struct EngineOptions: Sendable, Hashable {
    var blockCacheSize: Int
    var writeBufferSize: Int
    var bloomFilterBitsPerKey: Int
    var compression: Bool
    var paranoidChecks: Bool
    var maxOpenFiles: Int
    var blockSize: Int
    /// Whether reads and iterators verify each block's checksum (a read option, kept here
    /// because it is fixed for the life of the open database).
    var verifiesChecksums: Bool = true
    /// What to do when the database turns out to be damaged at open (not a LevelDB option).
    var corruptionPolicy: CorruptionPolicy = .fail
    /// Whether opening schedules the removal of deletions a crash interrupted in the root (not
    /// a LevelDB option; off for the `modelstore` tool's inspections, which change nothing).
    var finishesInterruptedDeletions: Bool = true
}

/// Owns the C objects an open database needs for as long as it is open.
///
/// LevelDB keeps raw pointers to the cache and filter policy inside the database object,
/// so these must outlive `leveldb_close`. The ``LevelDB`` handle keeps this object and
/// drops it only after closing the database.
final class LevelDBOpenOptions {
    let options: OpaquePointer
    private let cache: OpaquePointer?
    private let filterPolicy: OpaquePointer?

    init(_ settings: EngineOptions, createIfMissing: Bool) {
        options = leveldb_options_create()
        leveldb_options_set_create_if_missing(options, createIfMissing ? 1 : 0)
        leveldb_options_set_paranoid_checks(options, settings.paranoidChecks ? 1 : 0)
        leveldb_options_set_write_buffer_size(options, settings.writeBufferSize)
        leveldb_options_set_max_open_files(options, Int32(clamping: settings.maxOpenFiles))
        leveldb_options_set_block_size(options, settings.blockSize)
        leveldb_options_set_compression(
            options, Int32(settings.compression ? leveldb_snappy_compression : leveldb_no_compression))
        if settings.blockCacheSize > 0 {
            let cache = leveldb_cache_create_lru(settings.blockCacheSize)
            leveldb_options_set_cache(options, cache)
            self.cache = cache
        } else {
            cache = nil
        }
        if settings.bloomFilterBitsPerKey > 0 {
            let policy = leveldb_filterpolicy_create_bloom(Int32(clamping: settings.bloomFilterBitsPerKey))
            leveldb_options_set_filter_policy(options, policy)
            filterPolicy = policy
        } else {
            filterPolicy = nil
        }
    }

    deinit {
        leveldb_options_destroy(options)
        if let cache { leveldb_cache_destroy(cache) }
        if let filterPolicy { leveldb_filterpolicy_destroy(filterPolicy) }
    }
}
