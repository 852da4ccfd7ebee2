import CLevelDBBaseline

/// The C options for one open database, with the cache and filter policy they point at.
/// It must outlive the `leveldb_t` opened with it.
final class CLevelDBOptions {
    let options: OpaquePointer
    private let cache: OpaquePointer?
    private let filterPolicy: OpaquePointer?

    /// LevelDB's defaults untouched (nil) or the given tuning set explicitly.
    init(_ tuning: LevelDBTuning?) {
        options = leveldb_options_create()
        leveldb_options_set_create_if_missing(options, 1)
        guard let tuning else {
            cache = nil
            filterPolicy = nil
            return
        }
        leveldb_options_set_write_buffer_size(options, tuning.writeBufferSize)
        leveldb_options_set_paranoid_checks(options, tuning.paranoidChecks ? 1 : 0)
        leveldb_options_set_max_open_files(options, Int32(tuning.maxOpenFiles))
        leveldb_options_set_block_size(options, tuning.blockSize)
        leveldb_options_set_compression(
            options, Int32(tuning.usesSnappyCompression ? leveldb_snappy_compression : leveldb_no_compression))
        if tuning.blockCacheSize > 0 {
            let cache = leveldb_cache_create_lru(tuning.blockCacheSize)
            leveldb_options_set_cache(options, cache)
            self.cache = cache
        } else {
            cache = nil
        }
        if tuning.bloomFilterBitsPerKey > 0 {
            let policy = leveldb_filterpolicy_create_bloom(Int32(tuning.bloomFilterBitsPerKey))
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

/// A failure reported by LevelDB's C API.
struct CLevelDBError: Error, CustomStringConvertible {
    let description: String
}

/// Calls a LevelDB function that reports errors through `errptr`, and throws its message.
@inline(__always)
func withCLevelDBError<Result>(
    _ body: (UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Result
) throws -> Result {
    var message: UnsafeMutablePointer<CChar>?
    let result = body(&message)
    if let message {
        defer { leveldb_free(message) }
        throw CLevelDBError(description: String(cString: message))
    }
    return result
}

/// Opens the database at `path` with `tuning`, compacts all of it and closes it, so timed
/// reads meet a fully compacted tree.
func compactLevelDB(at path: String, tuning: LevelDBTuning?) throws {
    let options = CLevelDBOptions(tuning)
    let db: OpaquePointer? = try withCLevelDBError { leveldb_open(options.options, path, $0) }
    guard let db else { throw CLevelDBError(description: "leveldb_open returned no database for \(path)") }
    leveldb_compact_range(db, nil, 0, nil, 0)
    leveldb_close(db)
    withExtendedLifetime(options) {}
}
