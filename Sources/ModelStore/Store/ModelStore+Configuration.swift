public import Foundation
public import Logging

extension ModelStore {
    /// Everything about a store that is not its name or policy: where databases live, the
    /// clock, the codec and LevelDB's tuning.
    ///
    /// Start from the defaults and change what you need:
    ///
    /// ```swift
    /// var configuration = ModelStore.Configuration()
    /// configuration.directory = URL(fileURLWithPath: "/var/cache/myapp")
    /// configuration.syncWrites = true
    /// let store = try ModelStore(name: "users", policy: .low, configuration: configuration)
    /// ```
    ///
    /// LevelDB settings (cache, buffer, bloom filter, compression, paranoid checks, open
    /// files) take effect when a database is first opened in the process; a later
    /// ``ModelStore`` for the same database shares the engine already open.
    public struct Configuration: Sendable {
        /// The root directory that holds one folder per named database.
        ///
        /// Defaults to ``ModelStore/defaultDirectory``.
        public var directory: URL = ModelStore.defaultDirectory

        /// The clock that decides when records were stored and whether they have expired.
        ///
        /// Tests inject a clock they control instead of sleeping.
        public var now: @Sendable () -> Date = { Date() }

        /// The codec that encodes new records. Defaults to ``JSONModelCodec``.
        ///
        /// Records written by any built-in codec stay readable after you change this.
        public var codec: any ModelCodec = JSONModelCodec()

        /// Bytes of LevelDB's in-memory cache of uncompressed blocks (0 turns it off).
        public var blockCacheSize: Int = 8 << 20

        /// Bytes LevelDB buffers in memory before it writes a sorted table to disk.
        ///
        /// ModelStore's default is 16 MiB (LevelDB's is 4 MiB): random writes then make a
        /// quarter as many overlapping level-0 tables, which measured 0.6x the CPU per random
        /// put at a million records. It costs up to two buffers (32 MiB) in memory while one
        /// is written out, and up to 16 MiB of log to replay after a crash. See PERFORMANCE.md.
        public var writeBufferSize: Int = 16 << 20

        /// Bits per key of the bloom filter that lets a read of an absent key skip the disk
        /// (0 turns it off). Ten bits give about a 1% false-positive rate.
        public var bloomFilterBitsPerKey: Int = 10

        /// Whether LevelDB compresses blocks with Snappy. Off by default.
        ///
        /// A random read decompresses a whole block (4 KiB) to find one record, which
        /// measured about 2.5 µs of a 4 µs engine read at 100,000 records. Without compression
        /// LevelDB reads the block in place from its memory-mapped table: reads cost a third
        /// to a half and random writes 0.7–0.9x. The price is disk: JSON models take about
        /// twice the space (42 MiB instead of 21 MiB for 100,000 records of 414 bytes). Turn it
        /// on for large stores that are rarely read. Databases can switch freely: every block
        /// records whether it is compressed. See PERFORMANCE.md.
        public var usesSnappyCompression: Bool = false

        /// Whether every write waits for the operating system to flush it to stable storage.
        ///
        /// Without it a write survives a crash of the process but may be lost if the machine
        /// loses power; with it each write costs a disk flush.
        public var syncWrites: Bool = false

        /// Whether LevelDB checks aggressively for damage, so that an open reports a damaged
        /// log instead of silently dropping the records in it.
        public var paranoidChecks: Bool = true

        /// Whether every read checks the checksum of the block it reads. On by default.
        ///
        /// With it, a damaged table reads as ``ModelStoreError/corrupted(path:message:)``;
        /// without it, a flipped byte in an uncompressed block can come back as a wrong value
        /// or a decoding error. It costs a checksum of one block (4 KiB) per read that is not
        /// served from the block cache: about 0.7 µs. Turn it off only to measure, or when a
        /// layer below (a checksumming file system) already guarantees integrity.
        public var verifiesChecksums: Bool = true

        /// What to do when a database turns out to be damaged as it opens: throw (the
        /// default), repair it, or delete its files and start empty. Only damage triggers
        /// it; lock, permission and disk-full errors are thrown without touching any file.
        public var corruptionPolicy: CorruptionPolicy = .fail

        /// The largest encoded record a write accepts: ``ModelStore/maximumRecordLength``
        /// outside tests, which lower it to prove the size check without allocating 4 GiB.
        var recordLengthLimit: Int = ModelStore.maximumRecordLength

        /// The most files LevelDB keeps open for one database.
        public var maxOpenFiles: Int = 500

        /// Bytes of user data LevelDB packs into one block.
        public var blockSize: Int = 4 << 10

        /// How many decoded models to keep in memory per database (0 turns the cache off).
        ///
        /// A hit returns the model without touching LevelDB or the codec. Every write path
        /// invalidates the keys it touches, and expiry is still checked on every hit. Models
        /// that are classes are never cached, since one shared instance would be visible to
        /// every reader.
        public var objectCacheLimit: Int = 0

        /// How often to sweep expired records (and enforce the limits below) in the
        /// background, or nil (the default) for no automatic sweeps.
        ///
        /// Sweeps run on a background queue, never on the caller's thread, and stop when the
        /// store is closed or released.
        public var automaticSweepInterval: TimeInterval? = nil

        /// The most records a sweep leaves in the database; the oldest beyond it are removed.
        /// Nil (the default) sets no limit.
        public var maximumRecordCount: Int? = nil

        /// The most bytes of records (keys plus stored values) a sweep leaves in the
        /// database; the oldest beyond it are removed. Nil (the default) sets no limit.
        public var maximumTotalBytes: Int? = nil

        /// Where ModelStore reports opens, closes and failures. Nothing is logged on the hot
        /// paths of reads and writes.
        public var logger: Logger = Logger(label: "ModelStore")

        /// Creates a configuration with the defaults.
        public init() {}

        var engineOptions: EngineOptions {
            EngineOptions(
                blockCacheSize: max(0, blockCacheSize),
                writeBufferSize: max(64 << 10, writeBufferSize),
                bloomFilterBitsPerKey: max(0, bloomFilterBitsPerKey),
                compression: usesSnappyCompression,
                paranoidChecks: paranoidChecks,
                maxOpenFiles: max(16, maxOpenFiles),
                blockSize: max(1 << 10, blockSize),
                verifiesChecksums: verifiesChecksums,
                corruptionPolicy: corruptionPolicy)
        }
    }

    /// The root directory used when a configuration does not name one: the user's caches
    /// directory plus `ModelStore` (for example `~/.cache/ModelStore` on Linux and
    /// `~/Library/Caches/ModelStore` on macOS).
    public static var defaultDirectory: URL {
        let caches = FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask).first
            ?? FileManager.default.temporaryDirectory
        return caches.appendingPathComponent("ModelStore", isDirectory: true)
    }
}
