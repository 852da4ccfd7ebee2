import Foundation
import ModelStore

/// The metadata a server-fetched record typically carries: an HTTP validator pair.
struct ETagMetadata: Codable, Sendable {
    var etag: String
    var lastModified: String
}

/// What a record's metadata costs: puts and gets of the benchmark's profile with and without a
/// small ``ETagMetadata`` beside it, and ``ModelStore/metadata(_:forKey:)`` against
/// ``ModelStore/entry(_:forKey:)`` (which decodes the profile). JSON codec, ModelStore's
/// default LevelDB settings, no object cache.
///
/// Each round writes `records` profiles without metadata into one database and `records` with
/// metadata into another, then reads them back in key order. The operations are compared in
/// *pairs of blocks* of ``metadataBlockSize`` keys: the same keys through both operations, one
/// right after the other (alternating which goes first), so each pair runs at the same machine
/// speed; on a shared machine whose speed drifts by 2x within seconds, a ratio of two cells
/// measured seconds apart mostly measures the drift. A ratio is the median over every pair of
/// every round, with its quartiles; a time is the median of the rounds' mean CPU ns per
/// operation.
func runMetadataExperiment(records: Int, rounds: Int, directory: String) throws -> String {
    let corpus = ProfileCorpus(count: records)
    let metadata = ETagMetadata(
        etag: "\"33a64df551425fcc55e4d42a148795d9f25f89d4\"", lastModified: "Tue, 24 Nov 2026 10:00:00 GMT")
    var samples = MetadataSamples()
    for round in 0..<rounds {
        let plain = try openMetadataStore(directory, "plain-\(round)")
        let tagged = try openMetadataStore(directory, "tagged-\(round)")
        try samples.pair("put with metadata", over: "put", records: records, round: round) { range in
            for number in range { try tagged.set(corpus.profile(number), forKey: ProfileCorpus.key(number), metadata: metadata) }
        } baseline: { range in
            for number in range { try plain.set(corpus.profile(number), forKey: ProfileCorpus.key(number)) }
        }
        try samples.pair("get with metadata", over: "get", records: records, round: round) { range in
            for number in range { blackHole(try tagged.object(Profile.self, forKey: ProfileCorpus.key(number))) }
        } baseline: { range in
            for number in range { blackHole(try plain.object(Profile.self, forKey: ProfileCorpus.key(number))) }
        }
        // Inverted: the ratio is entry's time over metadata's, the "x faster" of the target.
        try samples.pair("entry(_:forKey:)", over: "metadata(_:forKey:)", records: records, round: round) { range in
            for number in range { blackHole(try tagged.entry(Profile.self, forKey: ProfileCorpus.key(number))) }
        } baseline: { range in
            for number in range { blackHole(try tagged.metadata(ETagMetadata.self, forKey: ProfileCorpus.key(number))) }
        }
        // One LevelDB get and a header parse, nothing decoded: the floor under any keyed read,
        // so entry ÷ this is the most metadata(_:forKey:) could ever be faster than entry.
        try samples.pair("entry, again", over: "contains(_:)", records: records, round: round) { range in
            for number in range { blackHole(try tagged.entry(Profile.self, forKey: ProfileCorpus.key(number))) }
        } baseline: { range in
            for number in range { blackHole(try tagged.contains(ProfileCorpus.key(number))) }
        }
        // One get and the metadata decode over one get: with entry ÷ contains above, this bounds what any
        // speed-up of the metadata's decode could do for the target (see PERFORMANCE.md).
        try samples.pair("metadata, again", over: "contains, again", records: records, round: round) { range in
            for number in range { blackHole(try tagged.metadata(ETagMetadata.self, forKey: ProfileCorpus.key(number))) }
        } baseline: { range in
            for number in range { blackHole(try tagged.contains(ProfileCorpus.key(number))) }
        }
        // The codec alone, as the store calls it: what the metadata's share of a put is made of.
        let codec: any ModelCodec = JSONModelCodec()
        var buffer: [UInt8] = []
        try samples.time("encode profile", records) {
            buffer.removeAll(keepingCapacity: true)
            try codec.encode(corpus.profile($0), appendingTo: &buffer)
        }
        let boxed: any Codable & Sendable = metadata
        try samples.time("encode metadata", records) { _ in
            buffer.removeAll(keepingCapacity: true)
            try codec.encode(boxed, appendingTo: &buffer)
        }
        let encodedMetadata = try codec.encode(metadata)
        try samples.time("decode metadata", records) { _ in
            try encodedMetadata.withUnsafeBytes { blackHole(try codec.decode(ETagMetadata.self, fromBytes: $0)) }
        }
        // The same with the binary codec: what small documents cost without JSON's text.
        let binary: any ModelCodec = BinaryModelCodec()
        try samples.time("encode metadata (binary)", records) { _ in
            buffer.removeAll(keepingCapacity: true)
            try binary.encode(boxed, appendingTo: &buffer)
        }
        let binaryMetadata = try binary.encode(metadata)
        try samples.time("decode metadata (binary)", records) { _ in
            try binaryMetadata.withUnsafeBytes { blackHole(try binary.decode(ETagMetadata.self, fromBytes: $0)) }
        }
        // The same decode by both codecs in pairs: how much faster the binary codec's decoder, which scans no
        // text, is on a document this small.
        try samples.pair("decode metadata (JSON), paired", over: "decode metadata (binary), paired", records: records,
                         round: round) { range in
            for _ in range {
                try encodedMetadata.withUnsafeBytes { blackHole(try codec.decode(ETagMetadata.self, fromBytes: $0)) }
            }
        } baseline: { range in
            for _ in range {
                try binaryMetadata.withUnsafeBytes { blackHole(try binary.decode(ETagMetadata.self, fromBytes: $0)) }
            }
        }
        try plain.close()
        try tagged.close()
        try? FileManager.default.removeItem(atPath: directory)
    }
    let rows: [(String, String)] = [
        ("put", ""), ("put with metadata", samples.ratio("put with metadata", "of put (target ≤ 1.10x)")),
        ("get", ""), ("get with metadata", samples.ratio("get with metadata", "of get (target ≤ 1.10x)")),
        ("entry(_:forKey:)", ""), ("encode profile", "codec alone"), ("encode metadata", "codec alone"),
        ("decode metadata", "codec alone"), ("encode metadata (binary)", "codec alone"),
        ("decode metadata (binary)", "codec alone"),
        ("metadata(_:forKey:)", samples.ratio("entry(_:forKey:)", "faster than entry (target ≥ 3x)")),
        ("contains(_:)",
         "one LevelDB get, no decoding: entry is " + samples.ratio("entry, again", "of it")
            + ", the most any keyed read could be faster than entry; metadata(_:forKey:) is "
            + samples.ratio("metadata, again", "of it")),
        ("decode metadata (JSON), paired",
         samples.ratio("decode metadata (JSON), paired", "of the binary codec's decode of the same metadata")),
    ]
    var lines = [
        "### Metadata, CPU ns per operation",
        "",
        "\(records) records of the benchmark's profile (JSON), metadata an ETag and a Last-Modified "
            + "date; median of \(rounds) rounds. Ratios: median [quartiles] of paired blocks of "
            + "\(metadataBlockSize) operations on the same keys, run back to back.",
        "",
        "| Operation | ns/op | |",
        "|---|---:|---|",
    ]
    for (name, note) in rows {
        lines.append("| \(name) | " + String(format: "%.0f", samples.nanoseconds(name)) + " | \(note) |")
    }
    return lines.joined(separator: "\n")
}

/// How many operations each block of a pair runs: long enough for the clock (about 0.1–3 ms),
/// short enough that the machine's speed does not change within a pair.
let metadataBlockSize = 250

/// The experiment's measurements: each operation's mean CPU ns per round, and each compared
/// pair's ratios, block by block. (The encryption experiment measures the same way.)
struct MetadataSamples {
    private var nanosecondsPerRound: [String: [Double]] = [:]
    private var ratios: [String: [Double]] = [:]

    /// Runs `measured` and `baseline` over the same blocks of keys, back to back, and records
    /// the ratio of their times per block and their mean times for the round.
    mutating func pair(
        _ measuredName: String, over baselineName: String, records: Int, round: Int,
        _ measured: (Range<Int>) throws -> Void, baseline: (Range<Int>) throws -> Void
    ) throws {
        var measuredTotal: UInt64 = 0
        var baselineTotal: UInt64 = 0
        for (block, start) in stride(from: 0, to: records, by: metadataBlockSize).enumerated() {
            let range = start..<min(start + metadataBlockSize, records)
            let measuredFirst = (block + round).isMultiple(of: 2)
            var measuredTime: UInt64 = 0
            var baselineTime: UInt64 = 0
            for step in 0..<2 {
                let runsMeasured = (step == 0) == measuredFirst
                let begin = processCPUNanoseconds()
                try runsMeasured ? measured(range) : baseline(range)
                let elapsed = processCPUNanoseconds() - begin
                if runsMeasured { measuredTime = elapsed } else { baselineTime = elapsed }
            }
            measuredTotal += measuredTime
            baselineTotal += baselineTime
            if baselineTime > 0 { ratios[measuredName, default: []].append(Double(measuredTime) / Double(baselineTime)) }
        }
        nanosecondsPerRound[measuredName, default: []].append(Double(measuredTotal) / Double(records))
        nanosecondsPerRound[baselineName, default: []].append(Double(baselineTotal) / Double(records))
    }

    /// Records the mean CPU ns per call of `body` over `count` calls.
    mutating func time(_ name: String, _ count: Int, _ body: (Int) throws -> Void) rethrows {
        let start = processCPUNanoseconds()
        for number in 0..<count { try body(number) }
        nanosecondsPerRound[name, default: []].append(Double(processCPUNanoseconds() - start) / Double(count))
    }

    /// The median over rounds of `name`'s mean time.
    func nanoseconds(_ name: String) -> Double {
        median(nanosecondsPerRound[name] ?? []) ?? 0
    }

    /// `name`'s paired ratio as "1.07x [1.02–1.12] `note`": median and quartiles over all blocks.
    func ratio(_ name: String, _ note: String) -> String {
        let sorted = (ratios[name] ?? []).sorted()
        guard !sorted.isEmpty else { return "n/a" }
        func quantile(_ q: Double) -> Double { sorted[min(sorted.count - 1, Int(q * Double(sorted.count - 1) + 0.5))] }
        return String(format: "%.2fx [%.2f–%.2f] ", quantile(0.5), quantile(0.25), quantile(0.75)) + note
    }
}

private func openMetadataStore(_ directory: String, _ name: String) throws -> ModelStore {
    var configuration = ModelStore.Configuration()
    configuration.directory = URL(fileURLWithPath: directory, isDirectory: true)
    LevelDBTuning.modelStoreDefaults.apply(to: &configuration)
    configuration.objectCacheLimit = 0
    return try ModelStore(name: name, policy: .never, configuration: configuration)
}

/// CPU time of all threads of the process (LevelDB's background compaction included), not wall
/// time: on a shared machine the wall clock mostly measures the other processes.
func processCPUNanoseconds() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}
