import Foundation
import ModelStore

/// One timed workload: a short name for `--only` and the tables, and what one operation is.
struct Workload: Sendable {
    let id: String
    let title: String
}

/// The workloads of a plain store (no index, no shared tier, no encryption, no backup, no object
/// cache), for one codec: what issue 36 measured from outside, at 100,000 records.
///
/// - `put-asc`: `set(_:forKey:)` of every record, keys ascending, into an empty database;
/// - `put-random`: the same in a random order, into another empty database;
/// - `import`: `importObjects(_:key:batchSize:)` of every record in batches of 1,000;
/// - `get`: `object(_:forKey:)` of 100,000 random stored keys, on the imported database once
///   compacted, after 10,000 untimed reads;
/// - `scan`: `entries(_:)` over every record, decoding each;
/// - `sweep`: `removeExpiredObjects()` over a database whose every record has expired (written
///   two days before the injected clock's now, under a 24-hour policy, then compacted), per record.
enum PlainStoreWorkloads {
    static let codecs: [(id: String, name: String, codec: any ModelCodec)] = [
        ("json", "JSON", JSONModelCodec()),
        ("binary", "binary", BinaryModelCodec()),
    ]

    static let kinds: [(id: String, title: String)] = [
        ("put-asc", "put, keys ascending"),
        ("put-random", "put, random keys"),
        ("import", "import ×1000"),
        ("get", "get"),
        ("scan", "scan + decode"),
        ("sweep", "sweep, every record expired (per record)"),
    ]

    /// Every workload, in the order they run and are printed.
    static var all: [Workload] {
        codecs.flatMap { codec in
            kinds.map { Workload(id: "\($0.id)-\(codec.id)", title: "\($0.title) (\(codec.name))") }
        }
    }

    /// Runs the selected workloads of every codec once, under `directory`; returns a sample (µs
    /// per operation) for each.
    static func run(
        records: Int, directory: String, selected: (String) -> Bool
    ) throws -> [(String, Timing)] {
        var samples: [(String, Timing)] = []
        func record(_ id: String, _ timing: Timing) { samples.append((id, timing)) }
        let corpus = ProfileCorpus(count: records)
        let order = corpus.shuffledNumbers(seed: 0xC0FFEE).map(Int.init)
        let keys = (0..<records).map { ProfileCorpus.key($0) }
        let clock = BenchClock()
        for codec in codecs {
            func wanted(_ kind: String) -> Bool { selected("\(kind)-\(codec.id)") }
            func open(_ name: String) throws -> ModelStore {
                var configuration = ModelStore.Configuration()
                configuration.directory = URL(fileURLWithPath: directory, isDirectory: true)
                configuration.codec = codec.codec
                configuration.now = { clock.now }
                return try ModelStore(name: "\(name)-\(codec.id)", policy: .low, configuration: configuration)
            }
            func delete(_ name: String) throws {
                try ModelStore.deleteDatabase(
                    named: "\(name)-\(codec.id)", in: URL(fileURLWithPath: directory, isDirectory: true))
            }
            try warmUp(open("warm-up"), corpus: corpus, keys: keys)
            try delete("warm-up")

            if wanted("put-asc") {
                let store = try open("ascending")
                record("put-asc-\(codec.id)", try measuredRegion(records) {
                    for number in 0..<records { try store.set(corpus.profile(number), forKey: keys[number]) }
                })
                try printStatistics(of: store, after: "put-asc-\(codec.id)")
                try store.close()
                try delete("ascending")
            }
            if wanted("put-random") {
                let store = try open("random")
                record("put-random-\(codec.id)", try measuredRegion(records) {
                    for number in order { try store.set(corpus.profile(number), forKey: keys[number]) }
                })
                try store.close()
                try delete("random")
            }
            if wanted("import") || wanted("get") || wanted("scan") {
                let store = try open("imported")
                let importing = try waitFor {
                    try await measuredRegionAsync(records) {
                        try await store.importObjects(corpus.lazyProfiles, key: { ProfileCorpus.key($0.id) }, batchSize: 1_000)
                    }
                }
                if wanted("import") { record("import-\(codec.id)", importing) }
                try printStatistics(of: store, after: "import-\(codec.id)")
                if wanted("get") || wanted("scan") { try store.compact() }
                if wanted("get") {
                    var random = SplitMix64(seed: 0xBEEF)
                    for _ in 0..<10_000 {
                        _ = try store.object(Profile.self, forKey: keys[random.index(below: records)])
                    }
                    let lookups = 100_000
                    record("get-\(codec.id)", try measuredRegion(lookups) {
                        for _ in 0..<lookups {
                            guard let profile = try store.object(Profile.self, forKey: keys[random.index(below: records)])
                            else { throw BenchFailure("a stored record was not found") }
                            blackHole(profile)
                        }
                    })
                }
                if wanted("scan") {
                    record("scan-\(codec.id)", try measuredRegion(records) {
                        let cursor = try store.entries(Profile.self)
                        var count = 0
                        while let entry = try cursor.next() {
                            blackHole(entry)
                            count += 1
                        }
                        guard count == records else { throw BenchFailure("the scan read \(count) records") }
                    })
                }
                try store.close()
                try delete("imported")
            }
            if wanted("sweep") {
                let store = try open("expired")
                clock.offset = -2 * 86_400
                for number in order { try store.set(corpus.profile(number), forKey: keys[number]) }
                clock.offset = 0
                // At rest, as records that expire are: compacted, so that no compaction of their
                // writes runs during the sweep.
                try store.compact()
                var removed = 0
                record("sweep-\(codec.id)", try measuredRegion(records) { removed = try store.removeExpiredObjects() })
                guard removed == records else { throw BenchFailure("the sweep removed \(removed) of \(records)") }
                try store.close()
                try delete("expired")
            }
        }
        return samples
    }

    /// LevelDB's `leveldb.stats` on standard error when `PLAIN_STORE_STATS` is set: the tables
    /// and compactions a workload left (scripts/bench-compare sends standard error nowhere).
    private static func printStatistics(of store: ModelStore, after workload: String) throws {
        guard ProcessInfo.processInfo.environment["PLAIN_STORE_STATS"] != nil else { return }
        FileHandle.standardError.write(Data("after \(workload):\n\(try store.statistics())\n".utf8))
    }

    /// Each operation a couple of thousand times on a scratch database, untimed, so that lazy
    /// binding, first-use initialisation and the codec's caches are paid before measuring.
    private static func warmUp(_ store: ModelStore, corpus: ProfileCorpus, keys: [String]) throws {
        let count = min(corpus.count, 2_000)
        for number in 0..<count { try store.set(corpus.profile(number), forKey: keys[number]) }
        for number in 0..<count { blackHole(try store.object(Profile.self, forKey: keys[number])) }
        let cursor = try store.entries(Profile.self)
        while let entry = try cursor.next() { blackHole(entry) }
        try store.close()
    }
}

/// The clock the stores read: now, moved by `offset` seconds while the sweep's records are written.
final class BenchClock: @unchecked Sendable {
    // @unchecked: `offset` changes only between operations, on the benchmark's one thread.
    var offset: TimeInterval = 0
    var now: Date { Date(timeIntervalSinceNow: offset) }
}
