import Foundation
import ModelStore

/// The cost of `maximumTotalBytes` and `maximumRecordCount` on reads and puts (issue 38: a read
/// hit within 5 % of the library before it, a put within 5 %). Every build since 2bd6e82 has the
/// two limits; before issue 38 they only acted at sweeps (evicting by write time), after it a
/// read hit counts a use and a put counts its bytes. The limits are the library's defaults
/// otherwise (the eviction policy too), so the same source measures both.
///
/// - `cache-hit-limited`: `cache-hit` with the limits at twice the records and 1 GiB;
/// - `get-binary-limited`: `get-binary` (LevelDB, no object cache) with the limits at twice the
///   records and 1 GiB, so that nothing is evicted;
/// - `put-random-binary-limited`: `put-random-binary` with the same limits, nothing evicted;
/// - `put-random-binary-evicting`: `put-random-binary` with `maximumRecordCount` at half the
///   records, so that the second half of the puts evict (after issue 38, as they go; before, not
///   at all: limits then acted only at sweeps). Information, not a like-for-like comparison.
enum LimitWorkloads {
    static let all = [
        Workload(id: "cache-hit-limited", title: "object-cache hit, 1 thread, limits far (ns)"),
        Workload(id: "get-binary-limited", title: "get (binary), limits far"),
        Workload(id: "put-random-binary-limited", title: "put, random keys (binary), limits far"),
        Workload(id: "put-random-binary-evicting", title: "put, random keys (binary), count limit at half"),
    ]

    /// A byte limit no workload reaches: 1 GiB.
    static let farBytes = 1 << 30

    static func run(
        records: Int, hits: Int, directory: String, selected: (String) -> Bool, record: (String, Timing) -> Void
    ) throws {
        guard all.contains(where: { selected($0.id) }) else { return }
        let corpus = ProfileCorpus(count: records)
        let order = corpus.shuffledNumbers(seed: 0xC0FFEE).map(Int.init)
        let keys = (0..<records).map { ProfileCorpus.key($0) }
        let folder = URL(fileURLWithPath: directory, isDirectory: true)
        func open(_ name: String, maximumCount: Int?, maximumBytes: Int?, objectCache: Int = 0) throws -> ModelStore {
            var configuration = ModelStore.Configuration()
            configuration.directory = folder
            configuration.codec = BinaryModelCodec()
            configuration.maximumRecordCount = maximumCount
            configuration.maximumTotalBytes = maximumBytes
            if objectCache > 0 { configuration.objectCacheLimit = objectCache }
            return try ModelStore(name: name, policy: .low, configuration: configuration)
        }
        // As PlainStoreWorkloads does: each operation a couple of thousand times first, untimed.
        do {
            let store = try open("limits-warm-up", maximumCount: 2 * records, maximumBytes: farBytes)
            for number in 0..<min(records, 2_000) { try store.set(corpus.profile(number), forKey: keys[number]) }
            for number in 0..<min(records, 2_000) { blackHole(try store.object(Profile.self, forKey: keys[number])) }
            try store.close()
            try ModelStore.deleteDatabase(named: "limits-warm-up", in: folder)
        }

        for (id, maximumCount, maximumBytes) in [
            ("put-random-binary-limited", 2 * records, Optional(farBytes)),
            ("put-random-binary-evicting", records / 2, nil),
        ] where selected(id) {
            let store = try open("limits-put", maximumCount: maximumCount, maximumBytes: maximumBytes)
            record(id, try measuredRegion(records) {
                for number in order { try store.set(corpus.profile(number), forKey: keys[number]) }
            })
            if ProcessInfo.processInfo.environment["PLAIN_STORE_STATS"] != nil {
                FileHandle.standardError.write(Data("after \(id) (\(try store.count()) records):\n\(try store.statistics())\n".utf8))
            }
            try store.close()
            try ModelStore.deleteDatabase(named: "limits-put", in: folder)
        }

        if selected("get-binary-limited") {
            let store = try open("limits-get", maximumCount: 2 * records, maximumBytes: farBytes)
            _ = try waitFor {
                try await store.importObjects(corpus.lazyProfiles, key: { ProfileCorpus.key($0.id) }, batchSize: 1_000)
            }
            try store.compact()
            var random = SplitMix64(seed: 0xBEEF)
            for _ in 0..<10_000 { _ = try store.object(Profile.self, forKey: keys[random.index(below: records)]) }
            let lookups = 100_000
            record("get-binary-limited", try measuredRegion(lookups) {
                for _ in 0..<lookups {
                    guard let profile = try store.object(Profile.self, forKey: keys[random.index(below: records)])
                    else { throw BenchFailure("a stored record was not found") }
                    blackHole(profile)
                }
            })
            guard try store.count() == records else { throw BenchFailure("a record was evicted") }
            try store.close()
            try ModelStore.deleteDatabase(named: "limits-get", in: folder)
        }

        if selected("cache-hit-limited") {
            // CacheHitWorkloads' `cache-hit`, with the limits: 1,000 keys, an object cache of 4,096.
            let keyCount = CacheHitWorkloads.keyCount
            let corpus = ProfileCorpus(count: keyCount)
            let keys = (0..<keyCount).map { ProfileCorpus.key($0) }
            let store = try open("limits-cached", maximumCount: 2 * keyCount, maximumBytes: farBytes, objectCache: 4_096)
            for number in 0..<keyCount { try store.set(corpus.profile(number), forKey: keys[number]) }
            for _ in 0..<2 {
                for key in keys where try store.object(Profile.self, forKey: key) == nil {
                    throw BenchFailure("a stored record was not found")
                }
            }
            var random = SplitMix64(seed: 0xCAC4E)
            let reads = (0..<hits).map { _ in keys[random.index(below: keyCount)] }
            record("cache-hit-limited", try measuredRegion(hits, scale: 1e3) {
                for key in reads { blackHole(try? store.object(Profile.self, forKey: key)) }
            })
            try store.close()
            try ModelStore.deleteDatabase(named: "limits-cached", in: folder)
        }
    }
}
