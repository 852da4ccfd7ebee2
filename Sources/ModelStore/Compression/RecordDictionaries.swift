import Logging

// MARK: - Dictionary records
//
// A trained dictionary is a system record (see KeySpace), never returned by keys, counts,
// scans or sweeps, which all stop below 0xFF:
//
//   key:   0xFF, kind 0x02, the dictionary id as 4 bytes big-endian (ids start at 1)
//   value: offset 0, 1 byte: format (1)
//          offset 1, 4 bytes: CRC-32C of the key followed by value bytes 5...end, little-endian
//          offset 5: the dictionary, in Zstandard's format
//
// A dictionary is written (and the write returned) before any record that names it, and is
// never deleted: records written with it stay readable as long as they exist.

/// The Zstandard dictionaries of one open database, and the samples the first one is trained on.
///
/// Every dictionary the database holds is loaded when it opens (there is one per database in
/// practice: a dictionary is only trained when there is none), so a store that opens the
/// database without compression still reads compressed records.
final class RecordDictionaries: @unchecked Sendable {
    // @unchecked: every mutable property is only touched under `lock`.

    /// The system record kind of a dictionary, after 0xFF.
    static let kind: UInt8 = 0x02
    static let formatVersion: UInt8 = 1
    static let headerLength = 5
    /// The largest dictionary trained (PERFORMANCE.md, "Record compression, measured").
    static let capacity = 16 << 10
    /// Only a sample's first bytes are kept: large records compress well without a dictionary,
    /// and the samples of a store of large records must not take much memory.
    static let maximumSampleLength = 4 << 10
    /// The training starts once the samples hold this many bytes, however few records they
    /// are: the memory they hold stays bounded (Zstandard advises about 100 times the
    /// dictionary's size; this is 512 times).
    static let maximumSampleBytes = 8 << 20

    private let lock = Lock()
    private var byID: [UInt32: ZstdDictionary] = [:]
    private var newest: ZstdDictionary?
    private var samples: [UInt8] = []
    private var sampleSizes: [Int] = []
    private var state = State.collecting
    private var samplingStoredRecords = false

    private enum State {
        /// No dictionary yet: writes offer their payloads.
        case collecting
        /// Enough samples: the dictionary is being trained and written.
        case training
        /// A dictionary exists, or training failed (then records stay uncompressed until the
        /// database is opened again).
        case finished
    }

    /// What one step of the loading walk found.
    private enum Loaded {
        case dictionary(ZstdDictionary)
        case damaged
        /// A key under the dictionaries' prefix that no dictionary has (not 4 id bytes): not
        /// ModelStore's, so skipped, without hiding the dictionaries that sort after it.
        case foreign
        case end
    }

    /// Loads every dictionary stored in `engine`. Damaged ones are skipped with a warning:
    /// records that name them then throw `corrupted` when read, and no new one is trained
    /// over them (so a damaged database is not written to more than it has to be).
    init(loadingFrom engine: LevelDB, path: String, logger: Logger) {
        do {
            let iterator = try engine.makeIterator(snapshot: nil, fillCache: false)
            try iterator.seek(to: [KeySpace.systemMarker, Self.kind])
            while let found = try iterator.withCurrent({ key, value -> Loaded in
                guard key.count >= 2, key[0] == KeySpace.systemMarker, key[1] == Self.kind else { return .end }
                guard key.count == 6 else { return .foreign }
                return Self.parse(key: key, value: value).map(Loaded.dictionary) ?? .damaged
            }) {
                switch found {
                case .end:
                    break
                case .dictionary(let dictionary):
                    byID[dictionary.id] = dictionary
                    if dictionary.id > (newest?.id ?? 0) { newest = dictionary }
                case .damaged:
                    logger.warning("A compression dictionary is damaged", metadata: ["database": "\(path)"])
                    state = .finished
                case .foreign:
                    logger.warning(
                        "A key under the compression dictionaries' prefix is not a dictionary; skipped",
                        metadata: ["database": "\(path)"])
                }
                if case .end = found { break }
                try iterator.next()
            }
        } catch {
            logger.warning(
                "Compression dictionaries could not be read", metadata: ["database": "\(path)", "error": "\(error)"])
            state = .finished
        }
        if newest != nil { state = .finished }
    }

    // MARK: - Lookups

    /// The dictionary `id`, or nil if the database holds none by that id.
    func dictionary(id: UInt32) -> ZstdDictionary? {
        lock.withLock { byID[id] }
    }

    /// The dictionary new records are compressed with; nil until one is trained.
    var current: ZstdDictionary? {
        lock.withLock { newest }
    }

    // MARK: - Training

    /// Keeps `payload` as a training sample while there is no dictionary; returns the samples
    /// once `sampleCount` of them (or ``maximumSampleBytes``) are in, for the caller to train
    /// on (exactly once).
    func offer(_ payload: UnsafeRawBufferPointer, sampleCount: Int) -> (samples: [UInt8], sizes: [Int])? {
        lock.withLock {
            guard case .collecting = state, !payload.isEmpty else { return nil }
            let length = min(payload.count, Self.maximumSampleLength)
            samples.append(contentsOf: UnsafeRawBufferPointer(rebasing: payload[..<length]))
            sampleSizes.append(length)
            guard sampleSizes.count >= sampleCount || samples.count >= Self.maximumSampleBytes else { return nil }
            state = .training
            defer {
                samples = []
                sampleSizes = []
            }
            return (samples, sampleSizes)
        }
    }

    /// Whether a sampling pass over stored records should start (only the first caller's does).
    func claimStoredRecordSampling() -> Bool {
        lock.withLock {
            guard case .collecting = state, !samplingStoredRecords else { return false }
            samplingStoredRecords = true
            return true
        }
    }

    /// Whether samples are still wanted.
    var isCollecting: Bool {
        lock.withLock {
            if case .collecting = state { return true }
            return false
        }
    }

    /// The id the next dictionary gets: above every dictionary the database holds, and above
    /// every id a compressed record in `engine` names.
    ///
    /// A dictionary deleted behind ModelStore's back (by another LevelDB client) leaves records
    /// that name its id; a new dictionary under that id would decompress them with the wrong
    /// bytes, and the frames carry no checksum to notice. So a training walks every record
    /// once, on the maintenance queue before the dictionary is stored: once per database in
    /// practice (a dictionary is only trained when there is none).
    ///
    /// - Throws: What reading the engine throws (closed, damaged); ``ExhaustedIDs`` when a
    ///   record names the largest id.
    func nextID(notNamedByRecordsIn engine: LevelDB) throws -> UInt32 {
        var highest = UInt64(lock.withLock { byID.keys.max() ?? 0 })
        let iterator = try engine.makeIterator(snapshot: nil, fillCache: false)
        try iterator.seekToFirst()
        while let named = try iterator.withCurrent({ key, value -> UInt64? in
            guard key.first != KeySpace.systemMarker else { return nil }
            guard let header = RecordHeader(parsing: value), header.isPayloadCompressed else { return 0 }
            var offset = 0
            return LEB128.readIdentifier(UnsafeRawBufferPointer(rebasing: value[header.length...]), at: &offset) ?? 0
        }), let named {
            highest = max(highest, named)
            try iterator.next()
        }
        guard highest < UInt64(UInt32.max) else { throw ExhaustedIDs() }
        return UInt32(highest) + 1
    }

    /// A record names the largest dictionary id: no new dictionary can be told apart from it.
    struct ExhaustedIDs: Error {}

    /// Makes `dictionary` the one new records are compressed with; called once it is stored.
    func publish(_ dictionary: ZstdDictionary) {
        lock.withLock {
            byID[dictionary.id] = dictionary
            newest = dictionary
            state = .finished
        }
    }

    /// Training failed: records stay uncompressed until the database is opened again.
    func abandonTraining() {
        lock.withLock { state = .finished }
    }

    // MARK: - Format

    /// The system key of dictionary `id`.
    static func key(id: UInt32) -> [UInt8] {
        [KeySpace.systemMarker, kind] + [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: id >> $0) }
    }

    /// The stored value of `dictionary`.
    static func value(of dictionary: ZstdDictionary) -> [UInt8] {
        var value: [UInt8] = [formatVersion, 0, 0, 0, 0]
        value.append(contentsOf: dictionary.bytes)
        let crc = checksum(key: key(id: dictionary.id), value: value)
        value.withUnsafeMutableBytes { $0.storeBytes(of: crc.littleEndian, toByteOffset: 1, as: UInt32.self) }
        return value
    }

    /// The dictionary a stored record holds; nil when its format, checksum or bytes are damaged.
    static func parse(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) -> ZstdDictionary? {
        guard key.count == 6, value.count > headerLength, value[0] == formatVersion else { return nil }
        let stored = UInt32(littleEndian: value.loadUnaligned(fromByteOffset: 1, as: UInt32.self))
        guard checksum(key: Array(key), value: Array(value)) == stored else { return nil }
        let id = key[2...].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        return ZstdDictionary(id: id, bytes: Array(value[headerLength...]))
    }

    private static func checksum(key: [UInt8], value: [UInt8]) -> UInt32 {
        key.withUnsafeBytes { key in
            value.withUnsafeBytes { value in
                CRC32C.checksum(
                    UnsafeRawBufferPointer(rebasing: value[headerLength...]), continuing: CRC32C.checksum(key))
            }
        }
    }
}
