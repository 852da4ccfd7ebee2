/// Whether new records' models are compressed, one record at a time (see
/// ``ModelStore/Configuration/recordCompression``).
///
/// For example:
///
/// ```swift
/// var configuration = ModelStore.Configuration()
/// configuration.recordCompression = .zstd()          // level 3, dictionary from 2,000 records
/// let store = try ModelStore(name: "profiles", policy: .never, configuration: configuration)
/// ```
///
/// With ``zstd(level:dictionarySampleCount:)`` each record's encoded model is compressed with
/// Zstandard and a dictionary trained on the database's own records, so even a record of a few
/// hundred bytes compresses well, and a read decompresses that one record, not a 4 KiB block as
/// LevelDB's Snappy does. Measured on the benchmark's 415-byte JSON profiles (PERFORMANCE.md,
/// "Footprint"): 3.6x smaller per record at level 3 with a 16 KiB dictionary (Snappy over 4 KiB
/// blocks: 2.27x), about 0.85 µs to decompress one record and 3.3 µs to compress one.
///
/// Until the dictionary exists (it is trained in the background once
/// ``dictionarySampleCount`` records were written, or from the records already stored when a
/// database that has none is opened with compression on), records are stored uncompressed. A
/// record is stored compressed only when that saves bytes. Compressed records stay readable
/// by every store that opens the database, with or without this setting: the dictionary is a
/// record of the database itself and is never deleted.
public struct RecordCompression: Sendable, Hashable, CustomStringConvertible {
    /// Zstandard's compression level (1 fastest, 19 smallest); nil when compression is off.
    public let level: Int?

    /// How many records' models the dictionary is trained on.
    public let dictionarySampleCount: Int

    /// No compression: every model is stored as its codec encoded it (the default).
    public static let none = RecordCompression(level: nil, dictionarySampleCount: 0)

    /// Zstandard with a dictionary trained on the database's first `dictionarySampleCount`
    /// records.
    ///
    /// - Parameters:
    ///   - level: Zstandard's level, 1 to 19; 3 (Zstandard's default) compresses the
    ///     benchmark's profiles 3.6x, level 1 3.3x at about the same speed.
    ///   - dictionarySampleCount: Records sampled to train the dictionary, 100 to 100,000.
    public static func zstd(level: Int = 3, dictionarySampleCount: Int = 2_000) -> RecordCompression {
        RecordCompression(level: level, dictionarySampleCount: dictionarySampleCount)
    }

    /// Whether new records are compressed.
    public var isEnabled: Bool { level != nil }

    /// "none", or "zstd (level 3, dictionary from 2000 records)".
    public var description: String {
        guard let level else { return "none" }
        return "zstd (level \(level), dictionary from \(dictionarySampleCount) records)"
    }

    /// Throws ``ModelStoreError/invalidPolicy(reason:)`` for a level or sample count out of range.
    func validate() throws(ModelStoreError) {
        guard let level else { return }
        guard (1...19).contains(level) else {
            throw .invalidPolicy(reason: "recordCompression's zstd level is \(level); use 1 to 19")
        }
        guard (Self.minimumSampleCount...Self.maximumSampleCount).contains(dictionarySampleCount) else {
            throw .invalidPolicy(
                reason: "recordCompression's dictionarySampleCount is \(dictionarySampleCount); "
                    + "use \(Self.minimumSampleCount) to \(Self.maximumSampleCount) records")
        }
    }

    /// Fewer samples than this train no useful dictionary (Zstandard's trainer refuses many).
    static let minimumSampleCount = 100
    /// The samples are kept in memory until the training: more than this many would hold up
    /// to 400 MiB (4 KiB each) and train for seconds, for a 16 KiB dictionary that a few
    /// thousand records already fill.
    static let maximumSampleCount = 100_000
}
