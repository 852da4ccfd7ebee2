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
/// metadata into another (alternating which goes first), then reads them back in key order.
/// Each cell is the median over `rounds` rounds, in CPU ns per operation.
func runMetadataExperiment(records: Int, rounds: Int, directory: String) throws -> String {
    let corpus = ProfileCorpus(count: records)
    let metadata = ETagMetadata(
        etag: "\"33a64df551425fcc55e4d42a148795d9f25f89d4\"", lastModified: "Tue, 24 Nov 2026 10:00:00 GMT")
    var samples: [String: [Double]] = [:]
    for round in 0..<rounds {
        let plain = try openMetadataStore(directory, "plain-\(round)")
        let tagged = try openMetadataStore(directory, "tagged-\(round)")
        let putPlain = {
            try nanosecondsPerOperation(records) { try plain.set(corpus.profile($0), forKey: ProfileCorpus.key($0)) }
        }
        let putTagged = {
            try nanosecondsPerOperation(records) {
                try tagged.set(corpus.profile($0), forKey: ProfileCorpus.key($0), metadata: metadata)
            }
        }
        if round.isMultiple(of: 2) {
            samples["put", default: []].append(try putPlain())
            samples["put with metadata", default: []].append(try putTagged())
        } else {
            samples["put with metadata", default: []].append(try putTagged())
            samples["put", default: []].append(try putPlain())
        }
        samples["get", default: []].append(try nanosecondsPerOperation(records) {
            blackHole(try plain.object(Profile.self, forKey: ProfileCorpus.key($0)))
        })
        samples["get with metadata", default: []].append(try nanosecondsPerOperation(records) {
            blackHole(try tagged.object(Profile.self, forKey: ProfileCorpus.key($0)))
        })
        samples["entry(_:forKey:)", default: []].append(try nanosecondsPerOperation(records) {
            blackHole(try tagged.entry(Profile.self, forKey: ProfileCorpus.key($0)))
        })
        samples["metadata(_:forKey:)", default: []].append(try nanosecondsPerOperation(records) {
            blackHole(try tagged.metadata(ETagMetadata.self, forKey: ProfileCorpus.key($0)))
        })
        // One LevelDB get and a header parse, nothing decoded: the floor under any keyed read,
        // so entry ÷ this is the most metadata(_:forKey:) could ever be faster than entry.
        samples["contains(_:)", default: []].append(try nanosecondsPerOperation(records) {
            blackHole(try tagged.contains(ProfileCorpus.key($0)))
        })
        // The codec alone, as the store calls it: what the metadata's share of a put is made of.
        let codec: any ModelCodec = JSONModelCodec()
        var buffer: [UInt8] = []
        samples["encode profile", default: []].append(try nanosecondsPerOperation(records) {
            buffer.removeAll(keepingCapacity: true)
            try codec.encode(corpus.profile($0), appendingTo: &buffer)
        })
        let boxed: any Codable & Sendable = metadata
        samples["encode metadata", default: []].append(try nanosecondsPerOperation(records) { _ in
            buffer.removeAll(keepingCapacity: true)
            try codec.encode(boxed, appendingTo: &buffer)
        })
        let encodedMetadata = try codec.encode(metadata)
        samples["decode metadata", default: []].append(try nanosecondsPerOperation(records) { _ in
            try encodedMetadata.withUnsafeBytes { blackHole(try codec.decode(ETagMetadata.self, fromBytes: $0)) }
        })
        // The same with the binary codec: what small documents cost without JSON's text.
        let binary: any ModelCodec = BinaryModelCodec()
        samples["encode metadata (binary)", default: []].append(try nanosecondsPerOperation(records) { _ in
            buffer.removeAll(keepingCapacity: true)
            try binary.encode(boxed, appendingTo: &buffer)
        })
        let binaryMetadata = try binary.encode(metadata)
        samples["decode metadata (binary)", default: []].append(try nanosecondsPerOperation(records) { _ in
            try binaryMetadata.withUnsafeBytes { blackHole(try binary.decode(ETagMetadata.self, fromBytes: $0)) }
        })
        try plain.close()
        try tagged.close()
        try? FileManager.default.removeItem(atPath: directory)
    }
    func cell(_ name: String) -> Double { median(samples[name] ?? []) ?? 0 }
    func ratio(_ a: String, _ b: String) -> String { String(format: "%.2fx", cell(a) / cell(b)) }
    let rows: [(String, String)] = [
        ("put", ""), ("put with metadata", ratio("put with metadata", "put") + " of put (target ≤ 1.10x)"),
        ("get", ""), ("get with metadata", ratio("get with metadata", "get") + " of get (target ≤ 1.10x)"),
        ("entry(_:forKey:)", ""), ("encode profile", "codec alone"), ("encode metadata", "codec alone"),
        ("decode metadata", "codec alone"), ("encode metadata (binary)", "codec alone"),
        ("decode metadata (binary)", "codec alone"),
        ("metadata(_:forKey:)",
         ratio("entry(_:forKey:)", "metadata(_:forKey:)") + " faster than entry (target ≥ 3x)"),
        ("contains(_:)",
         "one LevelDB get, no decoding: entry is " + ratio("entry(_:forKey:)", "contains(_:)")
            + " of it, the most any keyed read could be faster than entry"),
    ]
    var lines = [
        "### Metadata, CPU ns per operation",
        "",
        "\(records) records of the benchmark's profile (JSON), metadata an ETag and a Last-Modified "
            + "date; median of \(rounds) rounds.",
        "",
        "| Operation | ns/op | |",
        "|---|---:|---|",
    ]
    for (name, note) in rows {
        lines.append("| \(name) | " + String(format: "%.0f", cell(name)) + " | \(note) |")
    }
    return lines.joined(separator: "\n")
}

private func openMetadataStore(_ directory: String, _ name: String) throws -> ModelStore {
    var configuration = ModelStore.Configuration()
    configuration.directory = URL(fileURLWithPath: directory, isDirectory: true)
    LevelDBTuning.modelStoreDefaults.apply(to: &configuration)
    configuration.objectCacheLimit = 0
    return try ModelStore(name: name, policy: .never, configuration: configuration)
}

/// Runs `body` for record numbers `0..<count` and returns the mean CPU nanoseconds per call,
/// all threads of the process (LevelDB's background compaction included). CPU time, not wall
/// time: on a shared machine the wall clock mostly measures the other processes.
private func nanosecondsPerOperation(_ count: Int, _ body: (Int) throws -> Void) throws -> Double {
    let start = processCPUNanoseconds()
    for number in 0..<count { try body(number) }
    return Double(processCPUNanoseconds() - start) / Double(count)
}

private func processCPUNanoseconds() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}
