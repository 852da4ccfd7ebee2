import ModelStore

/// LevelDB settings in one place, so a ModelStore contender and the C API that compacts its
/// files open LevelDB identically (a compaction without the filter policy would write tables
/// without bloom filters).
struct LevelDBTuning: Sendable, Hashable {
    var blockCacheSize: Int
    var writeBufferSize: Int
    var bloomFilterBitsPerKey: Int
    var usesSnappyCompression: Bool
    var paranoidChecks: Bool
    var maxOpenFiles: Int
    var blockSize: Int
    /// Whether reads verify block checksums: off in LevelDB, on in ModelStore (so a damaged
    /// table reads as an error, never as a wrong value).
    var verifiesChecksums: Bool = false
    /// ModelStore's own record compression (not LevelDB's): off unless a variant turns it on.
    var recordCompression: RecordCompression = .none

    /// LevelDB 1.23's own defaults (`include/leveldb/options.h`): an 8 MiB block cache that
    /// LevelDB creates itself, a 4 MiB write buffer, no filter policy, Snappy, no paranoid
    /// checks, 1,000 open files and 4 KiB blocks.
    static let levelDBDefaults = LevelDBTuning(
        blockCacheSize: 8 << 20, writeBufferSize: 4 << 20, bloomFilterBitsPerKey: 0,
        usesSnappyCompression: true, paranoidChecks: false, maxOpenFiles: 1_000, blockSize: 4 << 10)

    /// ModelStore's defaults, read from the library so they can never drift from it.
    static var modelStoreDefaults: LevelDBTuning {
        LevelDBTuning(ModelStore.Configuration())
    }

    /// ModelStore's defaults with Snappy compression turned back on (it was the default
    /// before reads showed it cost most of a random get): what compression costs and saves.
    static var snappyCompressed: LevelDBTuning {
        var tuning = modelStoreDefaults
        tuning.usesSnappyCompression = true
        return tuning
    }

    /// ModelStore's defaults with Zstandard record compression (level 3, a dictionary trained on
    /// the first 2,000 records): the footprint lever of PERFORMANCE.md, "Footprint".
    static var zstdRecords: LevelDBTuning {
        var tuning = modelStoreDefaults
        tuning.recordCompression = .zstd()
        return tuning
    }

    init(
        blockCacheSize: Int, writeBufferSize: Int, bloomFilterBitsPerKey: Int,
        usesSnappyCompression: Bool, paranoidChecks: Bool, maxOpenFiles: Int, blockSize: Int
    ) {
        self.blockCacheSize = blockCacheSize
        self.writeBufferSize = writeBufferSize
        self.bloomFilterBitsPerKey = bloomFilterBitsPerKey
        self.usesSnappyCompression = usesSnappyCompression
        self.paranoidChecks = paranoidChecks
        self.maxOpenFiles = maxOpenFiles
        self.blockSize = blockSize
    }

    init(_ configuration: ModelStore.Configuration) {
        self.init(
            blockCacheSize: configuration.blockCacheSize, writeBufferSize: configuration.writeBufferSize,
            bloomFilterBitsPerKey: configuration.bloomFilterBitsPerKey,
            usesSnappyCompression: configuration.usesSnappyCompression,
            paranoidChecks: configuration.paranoidChecks, maxOpenFiles: configuration.maxOpenFiles,
            blockSize: configuration.blockSize)
        verifiesChecksums = configuration.verifiesChecksums
    }

    /// Copies these settings into a ModelStore configuration.
    func apply(to configuration: inout ModelStore.Configuration) {
        configuration.blockCacheSize = blockCacheSize
        configuration.writeBufferSize = writeBufferSize
        configuration.bloomFilterBitsPerKey = bloomFilterBitsPerKey
        configuration.usesSnappyCompression = usesSnappyCompression
        configuration.paranoidChecks = paranoidChecks
        configuration.maxOpenFiles = maxOpenFiles
        configuration.blockSize = blockSize
        configuration.verifiesChecksums = verifiesChecksums
        configuration.recordCompression = recordCompression
    }
}
