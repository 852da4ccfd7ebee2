import Foundation
import Testing
@testable import ModelStore
import ModelStoreTestSupport

/// The sharded object cache's contract: the generation check per shard, the limit over all
/// shards, approximate recency, and, under threads that write and read the same keys, that no
/// reader ever sees a model older than the last write that returned.
@Suite("Object cache under concurrency")
struct ObjectCacheConcurrencyTests {
    static func item(_ value: Int) -> ObjectCache.Item {
        ObjectCache.Item(
            value: value, header: RecordHeader(storedAt: 0, expiresAt: nil, codec: .json), byteCount: 8,
            metadata: nil, tags: [])
    }

    /// Keys that land in at least two shards of a 1,000-entry cache (16 shards).
    static let keys = (0..<64).map { "key-\($0)" }

    // MARK: - The generation check, shard by shard

    @Test("A read that started before a write to its key never inserts what it read")
    func writeToSameKeyBlocksInsert() {
        let cache = ObjectCache(limit: 1_000)
        for key in Self.keys {
            let generation = cache.generation(of: key)
            cache.invalidate(key)
            cache.insert(key, Self.item(1), ifGeneration: generation)
            #expect(cache.lookup(key) == nil, "\(key)")
        }
        #expect(cache.count == 0)
    }

    @Test("A batch invalidation blocks the inserts of reads that started before it, in every shard it touches")
    func batchBlocksInsertsInEveryShard() {
        let cache = ObjectCache(limit: 1_000)
        let generations = Self.keys.map { cache.generation(of: $0) }
        cache.invalidate(Self.keys, spaces: nil)
        for (key, generation) in zip(Self.keys, generations) {
            cache.insert(key, Self.item(1), ifGeneration: generation)
        }
        #expect(cache.count == 0)
    }

    @Test("removeAll and a prefix removal block the inserts of reads that started before them, for any key")
    func removeAllAndPrefixBlockEveryShard() {
        for removal in [{ (cache: ObjectCache) in cache.removeAll() }, { $0.invalidate(prefix: "nothing-matches") }] {
            let cache = ObjectCache(limit: 1_000)
            let generations = Self.keys.map { cache.generation(of: $0) }
            removal(cache)
            for (key, generation) in zip(Self.keys, generations) {
                cache.insert(key, Self.item(1), ifGeneration: generation)
            }
            #expect(cache.count == 0)
        }
    }

    @Test("A prefix removal drops exactly the keys with the prefix, from every shard")
    func prefixRemovalAcrossShards() {
        let cache = ObjectCache(limit: 1_000)
        for key in Self.keys + Self.keys.map({ "other-" + $0 }) {
            cache.insert(key, Self.item(1), ifGeneration: cache.generation(of: key))
        }
        #expect(cache.count == 128)
        cache.invalidate(prefix: "key-")
        #expect(cache.count == 64)
        #expect(Self.keys.allSatisfy { cache.lookup($0) == nil })
        #expect(Self.keys.allSatisfy { cache.lookup("other-" + $0) != nil })
        #expect(cache.storedEntryCount == 64)
    }

    // MARK: - Limit and recency

    @Test("Entries never exceed the limit, however unevenly keys fall into shards")
    func limitHoldsOverAllShards() {
        let cache = ObjectCache(limit: 256)
        for number in 0..<5_000 {
            let key = "k\(number)"
            cache.insert(key, Self.item(number), ifGeneration: cache.generation(of: key))
            #expect(cache.count <= 256)
        }
        #expect(cache.count == 256)
        #expect(cache.storedEntryCount == 256)
    }

    @Test("A working set as large as the limit stays entirely cached")
    func fullWorkingSetFits() {
        let cache = ObjectCache(limit: 1_000)
        let keys = (0..<1_000).map { "user:\($0)" }
        for _ in 0..<3 {
            for key in keys where cache.lookup(key) == nil {
                cache.insert(key, Self.item(0), ifGeneration: cache.generation(of: key))
            }
        }
        #expect(keys.allSatisfy { cache.lookup($0) != nil })
    }

    @Test("A key read between every insert survives a stream of new keys")
    func hotKeySurvives() {
        let cache = ObjectCache(limit: 256)
        cache.insert("hot", Self.item(0), ifGeneration: cache.generation(of: "hot"))
        for number in 0..<10_000 {
            #expect(cache.lookup("hot") != nil)
            let key = "cold\(number)"
            cache.insert(key, Self.item(number), ifGeneration: cache.generation(of: key))
        }
        #expect(cache.lookup("hot") != nil)
    }

    // MARK: - Threads

    struct Versioned: Codable, Sendable {
        var writer: Int
        var version: Int
    }

    @Test("Threads writing and reading the same keys: a reader never sees a model older than the last write that returned", .long)
    func readersNeverSeeOlderThanCompletedWrites() throws {
        let fixture = Fixture()
        var configuration = fixture.configuration
        // Smaller than the keys, so evictions and re-inserts race with the writes too.
        configuration.objectCacheLimit = 96
        let store = try ModelStore(name: "db", policy: .never, configuration: configuration)
        let keys = (0..<128).map { "k\($0)" }
        for key in keys { try store.set(Versioned(writer: 0, version: 0), forKey: key) }
        // completed[key] is the highest version whose write returned; versions only grow
        // because each key has one writer thread at a time (writer w owns keys w, w+writers...).
        let writers = 3
        let completed = Locked([Int](repeating: 0, count: keys.count))
        let failures = Locked<[String]>([])
        let rounds = 300
        runOnThreads(writers + 3) { thread in
            if thread < writers {
                let mine = Array(stride(from: thread, to: keys.count, by: writers))
                for version in 1...rounds {
                    do {
                        if version.isMultiple(of: 5) {
                            // A batch across several shards.
                            try store.write { batch in
                                for index in mine { try batch.set(Versioned(writer: thread, version: version), forKey: keys[index]) }
                            }
                        } else {
                            for index in mine { try store.set(Versioned(writer: thread, version: version), forKey: keys[index]) }
                        }
                    } catch {
                        failures.withLock { $0.append("write: \(error)") }
                        return
                    }
                    completed.withLock { for index in mine { $0[index] = version } }
                }
            } else {
                var random = SystemRandomNumberGenerator()
                for _ in 0..<(rounds * keys.count / 4) {
                    let index = Int.random(in: 0..<keys.count, using: &random)
                    let floor = completed.withLock { $0[index] }
                    do {
                        let read = try store.object(Versioned.self, forKey: keys[index])
                        if (read?.version ?? -1) < floor {
                            failures.withLock { $0.append("\(keys[index]): read \(read?.version ?? -1) after \(floor) returned") }
                        }
                    } catch {
                        failures.withLock { $0.append("read: \(error)") }
                    }
                }
            }
        }
        #expect(failures.withLock { $0 } == [])
        for key in keys {
            #expect(try store.object(Versioned.self, forKey: key)?.version == rounds)
        }
        let cache = try #require(store.database.cache)
        #expect(cache.count <= 96)
        #expect(cache.count == cache.storedEntryCount)
    }

    @Test("Concurrent inserts, hits and invalidations of many keys keep the count exact and within the limit")
    func countStaysExactUnderThreads() {
        let cache = ObjectCache(limit: 200)
        let overLimit = Locked(false)
        runOnThreads(4) { thread in
            var random = SystemRandomNumberGenerator()
            for step in 0..<20_000 {
                let key = "k\(Int.random(in: 0..<600, using: &random))"
                switch step % 4 {
                case 0: cache.invalidate(key)
                case 1: _ = cache.lookup(key)
                default: cache.insert(key, Self.item(step), ifGeneration: cache.generation(of: key))
                }
                if cache.count > 200 { overLimit.withLock { $0 = true } }
            }
            if thread == 0 { cache.invalidate(prefix: "k1") }
        }
        #expect(overLimit.withLock { $0 } == false)
        #expect(cache.count == cache.storedEntryCount)
        #expect(cache.count <= 200)
    }
}
