import Foundation
import ModelStore
import Synchronization

/// An object-cache hit against the least a cache of decoded models can be: a
/// `Mutex<[String: Profile]>` holding the same models, read by the same keys in the same order.
///
/// - `cache-hit`, `dict-hit`: `object(_:forKey:)` of a store whose object cache holds 1,000 keys
///   (limit 4,096), and `withLock { $0[key] }` on the dictionary, one thread, ns per read;
/// - `cache-hit-x2`, `dict-hit-x2`: the same reads on two threads at once, wall ns per read of
///   both; a thread's reads per second over `cache-hit`'s is `2 × cache-hit ÷ cache-hit-x2`.
enum CacheHitWorkloads {
    static let all = [
        Workload(id: "cache-hit", title: "object-cache hit, 1 thread (ns)"),
        Workload(id: "dict-hit", title: "Mutex<[String: Profile]> hit, 1 thread (ns)"),
        Workload(id: "cache-hit-x2", title: "object-cache hit, 2 threads (wall ns per read)"),
        Workload(id: "dict-hit-x2", title: "Mutex<[String: Profile]> hit, 2 threads (wall ns per read)"),
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
        let order = (0..<hits).map { keys[$0 % keyCount] }

        let readCache: @Sendable () -> Void = {
            for key in order { blackHole(try? store.object(Profile.self, forKey: key)) }
        }
        let readDictionary: @Sendable () -> Void = {
            for key in order { blackHole(dictionary.mutex.withLock { $0[key] }) }
        }
        func onTwoThreads(_ body: @Sendable () -> Void) {
            DispatchQueue.concurrentPerform(iterations: 2) { _ in body() }
        }
        if selected("cache-hit") { record("cache-hit", try measuredRegion(hits, scale: 1e3, readCache)) }
        if selected("dict-hit") { record("dict-hit", try measuredRegion(hits, scale: 1e3, readDictionary)) }
        if selected("cache-hit-x2") {
            record("cache-hit-x2", try measuredRegion(2 * hits, scale: 1e3) { onTwoThreads(readCache) })
        }
        if selected("dict-hit-x2") {
            record("dict-hit-x2", try measuredRegion(2 * hits, scale: 1e3) { onTwoThreads(readDictionary) })
        }
        try store.close()
        try ModelStore.deleteDatabase(named: "cached", in: configuration.directory)
    }
}

/// The dictionary the hits are compared with, in a class so that both threads share it.
final class LockedProfiles: Sendable {
    let mutex = Mutex<[String: Profile]>([:])
}
