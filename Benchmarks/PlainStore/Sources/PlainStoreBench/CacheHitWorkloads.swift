import Foundation
import ModelStore
import Synchronization

/// An object-cache hit against the least a cache of decoded models can be: a
/// `Mutex<[String: Profile]>` holding the same models, read by the same keys in the same order.
///
/// - `cache-hit`, `dict-hit`: `object(_:forKey:)` of a store whose object cache holds 1,000 keys
///   (limit 4,096), and `withLock { $0[key] }` on the dictionary, one thread, keys in a random
///   order, ns per read;
/// - `cache-hit-x2`, `dict-hit-x2`: the same on two threads at once, each with its own random
///   order; CPU and wall ns per read of both. Two threads' reads per second over one thread's is
///   `cache-hit` wall ÷ `cache-hit-x2` wall (2 at best, on two idle cores);
/// - `cache-hit-scalars`, `cache-hit-scalars-x2`: `cache-hit` and `cache-hit-x2` with a model of
///   numbers only (``ScalarProfile``), whose copy retains nothing: what two threads' hits cost
///   without the reference counts of a model's strings and arrays, which every copy of a
///   ``Profile`` out of the cache retains and its reader releases;
/// - `frozen-hit`, `frozen-hit-x2`: the same reads of a `[String: Profile]` that never changes,
///   without any lock: the ceiling of any cache that hands out copies of a ``Profile``, whose
///   two threads' scaling is bounded by the reference counts both threads' copies write.
enum CacheHitWorkloads {
    static let all = [
        Workload(id: "cache-hit", title: "object-cache hit, 1 thread (ns)"),
        Workload(id: "dict-hit", title: "Mutex<[String: Profile]> hit, 1 thread (ns)"),
        Workload(id: "cache-hit-x2", title: "object-cache hit, 2 threads (wall ns per read)"),
        Workload(id: "dict-hit-x2", title: "Mutex<[String: Profile]> hit, 2 threads (wall ns per read)"),
        Workload(id: "cache-hit-scalars", title: "object-cache hit, a model of numbers, 1 thread (ns)"),
        Workload(id: "cache-hit-scalars-x2", title: "object-cache hit, a model of numbers, 2 threads (wall ns per read)"),
        Workload(id: "frozen-hit", title: "[String: Profile] never changed, no lock, 1 thread (ns)"),
        Workload(id: "frozen-hit-x2", title: "[String: Profile] never changed, no lock, 2 threads (wall ns per read)"),
    ]

    static let keyCount = 1_000

    static func run(
        hits: Int, directory: String, selected: (String) -> Bool, record: (String, Timing) -> Void
    ) throws {
        guard all.contains(where: { selected($0.id) }) else { return }
        let corpus = ProfileCorpus(count: keyCount)
        let keys = (0..<keyCount).map { ProfileCorpus.key($0) }
        var configuration = ModelStore.Configuration()
        configuration.directory = URL(fileURLWithPath: directory, isDirectory: true)
        configuration.objectCacheLimit = 4_096
        let store = try ModelStore(name: "cached", policy: .low, configuration: configuration)
        let dictionary = LockedProfiles()
        for number in 0..<keyCount {
            try store.set(corpus.profile(number), forKey: keys[number])
            dictionary.mutex.withLock { $0[keys[number]] = corpus.profile(number) }
        }
        // Two passes: the first reads LevelDB and fills the cache, the second only hits.
        for _ in 0..<2 {
            for key in keys where try store.object(Profile.self, forKey: key) == nil {
                throw BenchFailure("a stored record was not found")
            }
        }
        // The keys in the order each thread reads them: random, and each thread's own, so that two
        // threads meet on a key (or a shard) by chance, not in step. (With one order started at two
        // offsets, the second thread's late start put the two in step on the same keys in some
        // runs, which then cost twice as much as the others.)
        let orders = [UInt64(0xCAC4E), 0xD1C7].map { seed in
            var random = SplitMix64(seed: seed)
            return (0..<hits).map { _ in keys[random.index(below: keyCount)] }
        }

        let readCache: @Sendable (Int) -> Void = { thread in
            for key in orders[thread] { blackHole(try? store.object(Profile.self, forKey: key)) }
        }
        let readDictionary: @Sendable (Int) -> Void = { thread in
            for key in orders[thread] { blackHole(dictionary.mutex.withLock { $0[key] }) }
        }
        let frozen = dictionary.mutex.withLock { $0 }
        let readFrozen: @Sendable (Int) -> Void = { thread in
            for key in orders[thread] { blackHole(frozen[key]) }
        }
        func onTwoThreads(_ body: @Sendable (Int) -> Void) {
            DispatchQueue.concurrentPerform(iterations: 2) { thread in body(thread) }
        }
        if selected("cache-hit") { record("cache-hit", try measuredRegion(hits, scale: 1e3) { readCache(0) }) }
        if selected("dict-hit") { record("dict-hit", try measuredRegion(hits, scale: 1e3) { readDictionary(0) }) }
        if selected("cache-hit-x2") {
            record("cache-hit-x2", try measuredRegion(2 * hits, scale: 1e3) { onTwoThreads(readCache) })
        }
        if selected("dict-hit-x2") {
            record("dict-hit-x2", try measuredRegion(2 * hits, scale: 1e3) { onTwoThreads(readDictionary) })
        }
        if selected("frozen-hit") { record("frozen-hit", try measuredRegion(hits, scale: 1e3) { readFrozen(0) }) }
        if selected("frozen-hit-x2") {
            record("frozen-hit-x2", try measuredRegion(2 * hits, scale: 1e3) { onTwoThreads(readFrozen) })
        }
        try store.close()
        try ModelStore.deleteDatabase(named: "cached", in: configuration.directory)
        if selected("cache-hit-scalars") || selected("cache-hit-scalars-x2") {
            try runScalars(orders: orders, keys: keys, configuration: configuration, selected: selected, record: record)
        }
    }

    /// `cache-hit` and `cache-hit-x2` with ``ScalarProfile``, the same keys and orders.
    private static func runScalars(
        orders: [[String]], keys: [String], configuration: ModelStore.Configuration, selected: (String) -> Bool,
        record: (String, Timing) -> Void
    ) throws {
        let store = try ModelStore(name: "cached-scalars", policy: .low, configuration: configuration)
        for (number, key) in keys.enumerated() { try store.set(ScalarProfile(number), forKey: key) }
        for _ in 0..<2 {
            for key in keys where try store.object(ScalarProfile.self, forKey: key) == nil {
                throw BenchFailure("a stored record was not found")
            }
        }
        let read: @Sendable (Int) -> Void = { thread in
            for key in orders[thread] { blackHole(try? store.object(ScalarProfile.self, forKey: key)) }
        }
        let hits = orders[0].count
        if selected("cache-hit-scalars") { record("cache-hit-scalars", try measuredRegion(hits, scale: 1e3) { read(0) }) }
        if selected("cache-hit-scalars-x2") {
            record("cache-hit-scalars-x2", try measuredRegion(2 * hits, scale: 1e3) {
                DispatchQueue.concurrentPerform(iterations: 2) { thread in read(thread) }
            })
        }
        try store.close()
        try ModelStore.deleteDatabase(named: "cached-scalars", in: configuration.directory)
    }
}

/// A model of numbers only: copying it retains nothing.
struct ScalarProfile: Codable, Equatable, Sendable {
    var id: Int
    var joined: Double
    var score: Double
    var pages: Int
    var price: Double
    var followers: Int

    init(_ number: Int) {
        id = number
        joined = 1_700_000_000 + Double(number)
        score = Double(number) / 7
        pages = number % 900
        price = Double(number % 100) + 0.99
        followers = number * 31
    }
}

/// The dictionary the hits are compared with, in a class so that both threads share it.
final class LockedProfiles: Sendable {
    let mutex = Mutex<[String: Profile]>([:])
}
