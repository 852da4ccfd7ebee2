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
    /// LevelDB settings (cache, buffer, bloom filter, compression, paranoid checks, checksums,
    /// corruption policy, open files, block size) and ``objectCacheLimit`` take effect when a
    /// database is first opened in the process; a later ``ModelStore`` for the same database
    /// shares the engine and cache already open, and if it asks for other values ModelStore
    /// logs a warning naming both. Close every instance to reopen with new values.
    public struct Configuration: Sendable {
        /// The root directory that holds one folder per named database.
        ///
        /// Defaults to ``ModelStore/defaultDirectory``, a folder of this program's own. A path
        /// you set is used as it is (created if missing), resolved the way the file system
        /// resolves it: symbolic links followed, `..` after a link going to the parent of the
        /// link's target, whether or not the directory exists yet.
        public var directory: URL = ModelStore.defaultDirectory

        /// The clock that decides when records were stored and whether they have expired.
        ///
        /// Tests inject a clock they control instead of sleeping.
        public var now: @Sendable () -> Date = { Date() }

        /// The codec that encodes new records. Defaults to `JSONModelCodec` (from ModelStoreCodecs, re-exported).
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
        /// With it, a damaged table reads as ``ModelStoreError/corrupted(path:message:)``.
        /// Without it, a record's own checksum still refuses a damaged value, but LevelDB
        /// parses damaged blocks unchecked: a record can go missing, and LevelDB builds that
        /// keep their assertions (Debian's does) abort the whole process on some damaged
        /// bytes. It costs a checksum of one block (4 KiB) per read that is not served from
        /// the block cache: about 0.7 µs. Turn it off only to measure, or when a layer below
        /// (a checksumming file system) already guarantees integrity.
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

        /// Whether new records' models are compressed one by one with Zstandard and a
        /// dictionary trained on the database's own records. Off (``RecordCompression/none``)
        /// by default.
        ///
        /// The trade-off, measured on the benchmark's 415-byte JSON profiles (PERFORMANCE.md,
        /// "Footprint"): each record is 3.6x smaller at level 3 (LevelDB's Snappy over 4 KiB
        /// blocks, ``usesSnappyCompression``: 2.27x), so the disk, the mapped tables in RSS and
        /// deletes shrink with it; a read pays about 0.85 µs to decompress its one record (Snappy
        /// decompresses a whole block per read), a write about 3.3 µs to compress it.
        ///
        /// The dictionary is trained in the background from the first
        /// ``RecordCompression/dictionarySampleCount`` records written (or those already
        /// stored); records written before it exists stay uncompressed. Only the model is
        /// compressed, never the envelope, so `contains`, counts, sweeps and
        /// ``ModelStore/metadata(_:forKey:)`` cost what they did. A store opened without this
        /// setting still reads compressed records; versions of ModelStore from before it
        /// refuse them as undecodable. Per store instance: it decides how that instance writes.
        public var recordCompression: RecordCompression = .none

        /// Whether records are sealed, and with which key (``RecordEncryption/none`` by default).
        ///
        /// With `.aes256GCM(key:)` (package trait `Encryption`), every record's model and metadata
        /// are sealed with AES-256-GCM; keys, tags and timestamps stay readable. The database
        /// remembers its key's identifier: opening it with another key, without one, or opening
        /// an unencrypted database that holds records with one throws
        /// ``ModelStoreError/encryptionMismatch(path:mismatch:)``. With compression, records are
        /// compressed without a trained dictionary (a dictionary would keep plaintext).
        public var encryption: RecordEncryption = .none

        /// How many decoded models to keep in memory per database (0 turns the cache off).
        ///
        /// A hit returns the model without touching LevelDB or the codec. Every write path
        /// invalidates the keys it touches, and expiry is still checked on every hit. Models
        /// that are classes are never cached, since one shared instance would be visible to
        /// every reader. Hits from several threads scale: the cache is sharded, a hit takes no
        /// lock, and past the limit it evicts by approximate recency (CLOCK), not strict LRU
        /// order.
        ///
        /// Fixed when the database is first opened in this process, like LevelDB's settings: a
        /// later open of a database already open here shares its cache as it is, and a warning
        /// naming both values is logged. Negative values are refused with
        /// ``ModelStoreError/invalidPolicy(reason:)``.
        public var objectCacheLimit: Int = 0

        /// How often to sweep expired records (and enforce the limits below) in the
        /// background: a positive, finite number of seconds, or nil (the default) for no
        /// automatic sweeps. Anything else is refused with
        /// ``ModelStoreError/invalidPolicy(reason:)`` before anything touches the disk.
        ///
        /// Sweeps run on a background queue, never on the caller's thread, and stop when the
        /// store is closed or released.
        public var automaticSweepInterval: TimeInterval? = nil

        /// The most records the database keeps (0 or more); beyond it, records are evicted in the
        /// order ``eviction`` says. Nil (the default) sets no limit.
        ///
        /// Kept while writes arrive: a write that takes the database over the limit starts an
        /// eviction in the background, and writers that find it more than a sixteenth over evict
        /// in their own threads; every sweep evicts down to the limit exactly. Between sweeps,
        /// overwrites and removals are counted as if they freed nothing, so the database may stay
        /// below the limit by what they freed. Fixed, for that background eviction, when the
        /// database is first opened in this process (like ``objectCacheLimit``); each store's
        /// sweeps apply its own.
        public var maximumRecordCount: Int? = nil

        /// The most bytes of records (each record's key plus its stored value, as ModelStore
        /// counts them, not LevelDB's files) the database keeps (0 or more); beyond it, records
        /// are evicted in the order ``eviction`` says. Nil (the default) sets no limit. Kept as
        /// ``maximumRecordCount`` is: within a sixteenth (at least 64 KiB) while writes arrive,
        /// exactly after a sweep.
        public var maximumTotalBytes: Int? = nil

        /// Which records ``maximumTotalBytes`` and ``maximumRecordCount`` evict first:
        /// ``ModelStore/Eviction/leastRecentlyUsed`` (the default: a cache keeps what its program
        /// reads) or ``ModelStore/Eviction/oldestWritten``. Reads never write anything for it.
        /// Fixed, like the limits' background eviction, when the database is first opened in this
        /// process; a database keeps working whichever a later open chooses.
        public var eviction: ModelStore.Eviction = .leastRecentlyUsed

        /// When writers wait for eviction (see ``maximumTotalBytes``): beyond the margin (the
        /// default), or on every write over a limit, which keeps the database within its limits
        /// after every write (tests and the hit-ratio benchmark).
        @_spi(Benchmark)
        public var evictsInline: Bool = false

        /// A cache several processes share, behind this process's object cache and LevelDB
        /// (`RedisTier`, from the `ModelStoreRedis` product); nil (the default): none.
        ///
        /// With one, a local miss asks the tier before the read-through's fetch, and every
        /// write is published to it after the local commit, so other processes drop what it
        /// changed. The RunningAFleet article states the consistency model. Fixed when the
        /// database is first opened in this process, like ``objectCacheLimit``.
        public var sharedTier: (any SharedTier)? = nil

        /// Where ModelStore reports opens, closes and failures. Nothing is logged on the hot
        /// paths of reads and writes.
        public var logger: Logger = Logger(label: "ModelStore")

        /// Whether an open removes, in the background, what deletions and creations a crash
        /// interrupted left in the root (`.modelstore-trash-*` folders, and `.modelstore-new-*`
        /// folders whose creator is gone). The `modelstore` tool turns it off for its
        /// inspections, which promise to change nothing.
        package var finishesInterruptedDeletions: Bool = true

        /// Whether opening a store, and ``ModelStore/collection(_:policy:)``, record the policy in
        /// the database for tools (see ``ModelStore/recordedPolicy()``). The `modelstore` tool
        /// turns it off: its inspections open databases under policies of their own choosing and
        /// promise to change nothing.
        package var recordsPolicies: Bool = true

        /// Whether the open checks the database's encryption marker against ``encryption``
        /// (always, outside the `modelstore` tool): the tool inspects encrypted databases without
        /// a key, showing that their records are sealed. Without the check and without a key,
        /// every read of a sealed record throws ``ModelStoreError/encryptionMismatch(path:mismatch:)``.
        package var checksEncryption: Bool = true

        /// The read-through clock and metrics factory; tests inject their own.
        package var readThrough = ReadThroughSettings()

        /// Creates a configuration with the defaults.
        public init() {}

        /// Throws ``ModelStoreError/invalidPolicy(reason:)`` for a setting out of range, naming
        /// the setting and its valid values. Called before anything touches the disk. LevelDB's
        /// sizes are not refused: they are raised to LevelDB's minimums (see ``engineOptions``).
        func validate() throws(ModelStoreError) {
            if let interval = automaticSweepInterval {
                try TimeBounds.validateInterval(
                    interval, setting: "automaticSweepInterval", otherwise: "nil for no automatic sweeps")
            }
            if let count = maximumRecordCount, count < 0 {
                throw .invalidPolicy(
                    reason: "maximumRecordCount is \(count); use 0 or more records, or nil for no limit")
            }
            if let bytes = maximumTotalBytes, bytes < 0 {
                throw .invalidPolicy(reason: "maximumTotalBytes is \(bytes); use 0 or more bytes, or nil for no limit")
            }
            try recordCompression.validate()
            try encryption.validate()
            if objectCacheLimit < 0 {
                throw .invalidPolicy(
                    reason: "objectCacheLimit is \(objectCacheLimit); use 0 (no object cache) "
                        + "or a positive number of models")
            }
        }

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
                corruptionPolicy: corruptionPolicy,
                finishesInterruptedDeletions: finishesInterruptedDeletions)
        }
    }

    /// The root directory used when a configuration does not name one: a folder of this
    /// program's own under the user's caches directory, `<caches>/ModelStore/<program>`.
    ///
    /// `<caches>` is `~/.cache` (or `$XDG_CACHE_HOME`) on Linux and `~/Library/Caches` on
    /// macOS. `<program>` is the main bundle's identifier when there is one (an app), otherwise
    /// the executable's name, made into a valid folder name. So two programs of one user
    /// never share databases, lock each other out, or delete each other's with
    /// `deleteAllDatabases(in:)`. Versions before this one used `<caches>/ModelStore`
    /// itself; the README says how to move such a store.
    public static var defaultDirectory: URL {
        sharedCachesDirectory.appendingPathComponent(programFolderName(currentProgramName), isDirectory: true)
    }

    /// `<caches>/ModelStore`: the folder that holds each program's default directory.
    static var sharedCachesDirectory: URL {
        let caches = FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask).first
            ?? FileManager.default.temporaryDirectory
        return caches.appendingPathComponent("ModelStore", isDirectory: true)
    }

    /// The bundle identifier of an app, else the executable's name.
    private static var currentProgramName: String {
        #if canImport(Darwin)
        if let identifier = Bundle.main.bundleIdentifier, !identifier.isEmpty { return identifier }
        #endif
        let executable = CommandLine.arguments.first.map { URL(fileURLWithPath: $0).lastPathComponent } ?? ""
        return executable.isEmpty ? ProcessInfo.processInfo.processName : executable
    }

    /// Makes a program's name into a folder name that is a valid database name too: path
    /// separators, NUL and control characters become `_`; a name that is empty, `.`, `..` or
    /// starts with a prefix ModelStore reserves gets a `_` in front; a long name is cut to 200
    /// UTF-8 bytes. Never empty.
    static func programFolderName(_ program: String) -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in program.unicodeScalars {
            let unsafe = scalar == "/" || scalar == "\\" || scalar == "\0"
                || scalar.properties.generalCategory == .control
            scalars.append(unsafe ? "_" : scalar)
        }
        var name = String(scalars)
        if name.isEmpty || name == "." || name == ".."
            || name.utf8.starts(with: StoreDirectory.trashPrefix.utf8)
            || name.utf8.starts(with: StoreDirectory.creationPrefix.utf8) {
            name = "_" + name
        }
        while name.utf8.count > DatabaseName.maximumLength {
            name.unicodeScalars.removeLast()
        }
        return name
    }
}
