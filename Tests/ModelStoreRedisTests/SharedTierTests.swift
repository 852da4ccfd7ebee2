import Foundation
import ModelStore
import ModelStoreTestSupport
import Testing
@testable import ModelStoreRedis

/// The shared tier between nodes of one process (each with its own directory and tier) over a
/// real `redis-server`: reads, invalidations, hostile values, names and lifetimes.
@Suite(.serialized, .enabled(if: RedisServer.isInstalled, "needs redis-server (scripts/install-dependencies)"))
struct SharedTierTests {
    @Test func aModelStoredOnOneNodeIsReadOnAnotherWithoutFetching() async throws {
        let server = try RedisServer()
        let a = try FleetNode(server)
        let b = try FleetNode(server)
        try a.store.set(Profile(value: "ada"), forKey: "user:1")
        #expect(try b.value("user:1") == "ada")
        let fetched = Counter()
        let value = try await b.store.object(Profile.self, forKey: "user:1") {
            fetched.add()
            return Profile(value: "upstream")
        }
        #expect(value.value == "ada")
        #expect(fetched.value == 0)
        // Stored in b's own LevelDB: still there with Redis gone.
        #expect(try b.holdsLocally("user:1"))
        server.kill()
        #expect(try b.value("user:1") == "ada")
    }

    @Test func overwritesAndRemovalsReachOtherNodesWithin100Milliseconds() throws {
        let server = try RedisServer()
        let a = try FleetNode(server)
        let b = try FleetNode(server)
        let keys = (0..<200).map { "key:\($0)" }
        for key in keys { try a.store.set(Profile(value: "v1"), forKey: key) }
        for key in keys { #expect(try b.value(key) == "v1") }
        var overwrite: [Duration] = []
        var removal: [Duration] = []
        for key in keys {
            let clock = ContinuousClock()
            let start = clock.now
            try a.store.set(Profile(value: "v2"), forKey: key)
            _ = try #require(try timeUntil { try b.value(key) == "v2" })
            overwrite.append(clock.now - start)
        }
        for key in keys {
            let clock = ContinuousClock()
            let start = clock.now
            try a.store.removeObject(forKey: key)
            _ = try #require(try timeUntil { try b.value(key) == nil })
            removal.append(clock.now - start)
        }
        print("Invalidation latency over \(keys.count) keys, overwrite: \(Distribution(overwrite))")
        print("Invalidation latency over \(keys.count) keys, removal: \(Distribution(removal))")
        #expect(overwrite.max()! < .milliseconds(100))
        #expect(removal.max()! < .milliseconds(100))
    }

    @Test func prefixTagAndWholeCollectionRemovalsReachOtherNodes() throws {
        let server = try RedisServer()
        let a = try FleetNode(server)
        let b = try FleetNode(server)
        try a.store.set(Profile(value: "1"), forKey: "a:1")
        try a.store.set(Profile(value: "2"), forKey: "b:1", tags: ["team"])
        try a.store.set(Profile(value: "3"), forKey: "c:1")
        try a.store.collection("orders").set(Profile(value: "4"), forKey: "o:1")
        // Held in b's own LevelDB (a read that races with a's own entries is served, not kept):
        // the removal by prefix below raises the generation, after which Redis's copies are unreachable.
        for key in ["a:1", "b:1", "c:1"] { #expect(try b.holdsLocally(key)) }
        #expect(try b.store.collection("orders").object(Profile.self, forKey: "o:1") != nil)
        // b alone has this one: a's prefix removal must still reach it.
        try b.store.set(Profile(value: "5"), forKey: "a:2")
        #expect(try timeUntil { try a.value("a:2") == "5" } != nil)

        try a.store.removeObjects(withPrefix: "a:")
        #expect(try timeUntil { try b.value("a:1") == nil && b.value("a:2") == nil } != nil)
        #expect(try b.value("c:1") == "3")
        _ = try a.store.removeObjects(taggedWith: "team")
        #expect(try timeUntil { try b.value("b:1") == nil } != nil)
        try a.store.collection("orders").removeAllObjects()
        #expect(try timeUntil { try b.store.collection("orders").object(Profile.self, forKey: "o:1") == nil } != nil)
        #expect(try b.value("c:1") == "3")
    }

    @Test func deletingTheDatabaseOnOneNodeDropsItOnTheOthers() throws {
        let server = try RedisServer()
        let a = try FleetNode(server)
        let b = try FleetNode(server)
        try a.store.set(Profile(value: "v"), forKey: "k")
        try a.store.collection("orders").set(Profile(value: "o"), forKey: "k")
        #expect(try timeUntil { try b.value("k") == "v" && b.store.count() == 1 } != nil)
        try a.store.deleteFromDisk()
        #expect(try timeUntil { try b.store.count() == 0 } != nil)
        #expect(try b.value("k") == nil)
        #expect(try b.store.collection("orders").object(Profile.self, forKey: "k") == nil)
    }

    @Test func garbageWrongTypeAndTruncatedValuesAreMissesAndRemoved() throws {
        let server = try RedisServer()
        let a = try FleetNode(server)
        let b = try FleetNode(server)
        try a.store.set(Profile(value: "real"), forKey: "good")
        let good = try #require(try server.command([Array("GET".utf8), recordKey(a, "good")]).bytes)

        let garbage = recordKey(a, "garbage")
        try server.command([Array("SET".utf8), garbage, Array("not a record".utf8)])
        #expect(try b.value("garbage") == nil)
        #expect(try server.command([Array("EXISTS".utf8), garbage]) == .integer(0))

        let list = recordKey(a, "list")
        try server.command([Array("RPUSH".utf8), list, Array("x".utf8)])
        #expect(try b.value("list") == nil)
        #expect(try server.command([Array("EXISTS".utf8), list]) == .integer(0))

        let truncated = recordKey(a, "truncated")
        try server.command([Array("SET".utf8), truncated, Array(good.dropLast(3))])
        #expect(try b.value("truncated") == nil)
        #expect(try server.command([Array("EXISTS".utf8), truncated]) == .integer(0))

        // A valid record, but of another key: its checksum covers the key.
        let moved = recordKey(a, "moved")
        try server.command([Array("SET".utf8), moved, good])
        #expect(try b.value("moved") == nil)
        #expect(try server.command([Array("EXISTS".utf8), moved]) == .integer(0))

        var flipped = good
        flipped[flipped.count - 2] ^= 0x01
        let damaged = recordKey(a, "damaged")
        try server.command([Array("SET".utf8), damaged, flipped])
        #expect(try b.value("damaged") == nil)
        #expect(try server.command([Array("EXISTS".utf8), damaged]) == .integer(0))
        #expect(try b.value("good") == "real")
    }

    @Test func trickyNamesNeverShareRedisKeys() throws {
        let keys = RedisKeys(prefix: Array("p:".utf8))
        let long = String(repeating: "x", count: 70_000)
        let names: [(String, String?, String)] = [
            ("a", "b:c", "k"), ("a:b", "c", "k"), ("a", nil, "b:ck"), ("a", "b", ":ck"), ("a", "b:c", "k\0"),
            ("a", "b:c\0", "k"), ("a\0", "b:c", "k"), ("a/b", "c", "k"), ("a", "b/c", "k"), ("a", nil, "k"),
            ("café", nil, "k"), ("cafe\u{301}", nil, "k"), ("a", "café", "k"), ("a", "cafe\u{301}", "k"),
            ("a", nil, "café"), ("a", nil, "cafe\u{301}"), ("a", nil, long), ("a", nil, long + "x"), ("1:a", nil, "k"),
            ("a", "1:b", "k"), ("a", nil, "d"), ("a", "d", ""),
        ]
        var seen = Set<[UInt8]>()
        for (database, collection, key) in names {
            let redisKey = keys.record(
                database: database, generation: RedisGeneration(epoch: Array("e:1".utf8), number: 0),
                key: SharedTierKey(collection: collection, key: key))
            #expect(seen.insert(redisKey).inserted, "\(database) \(collection ?? "-") \(key.prefix(20))")
        }
        #expect(Set(names.map { keys.lock(database: $0.0, key: SharedTierKey(collection: $0.1, key: $0.2)) }).count == names.count)

        // End to end: database `a` with collection `b:c`, and database `a:b` with collection `c`.
        let server = try RedisServer()
        let a = try FleetNode(server, name: "a")
        let ab = try FleetNode(server, name: "a:b")
        let reader = try FleetNode(server, name: "a:b")
        // Until its reader follows the stream, a node takes nothing from Redis: a miss proves nothing.
        #expect(timeUntil { reader.tier.reader.isFollowing } != nil)
        try a.store.collection("b:c").set(Profile(value: "from a"), forKey: "k")
        #expect(try reader.store.collection("c").object(Profile.self, forKey: "k") == nil)
        // That read created the database's generation and announced it as a removal of the whole
        // database: applied by ab after ab's write, it would clear the write before its publication.
        #expect(timeUntil { ab.caughtUp() && reader.caughtUp() } != nil)
        try ab.store.collection("c").set(Profile(value: "from a:b"), forKey: "k")
        // Bounded: under load the publication can outlast the writer's wait.
        #expect(try timeUntil { try reader.store.collection("c").object(Profile.self, forKey: "k")?.value == "from a:b" } != nil)
        try a.store.set(Profile(value: "nfc"), forKey: "café")
        let nfdReader = try FleetNode(server, name: "a")
        #expect(timeUntil { nfdReader.tier.reader.isFollowing } != nil)
        #expect(try nfdReader.value("cafe\u{301}") == nil)
        #expect(try timeUntil { try nfdReader.value("café") == "nfc" } != nil)
    }

    @Test func aRecordReadFromRedisLivesNoLongerThanItDoesThere() throws {
        let server = try RedisServer()
        let a = try FleetNode(server)
        let b = try FleetNode(server)
        try a.store.set(Profile(value: "v"), forKey: "short", expiresAfter: 3600)
        let key = recordKey(a, "short")
        let pttl = try #require(try server.command([Array("PTTL".utf8), key]).integer)
        #expect(pttl > 3_590_000 && pttl <= 3_600_000)
        try server.command([Array("PEXPIRE".utf8), key, Array("5000".utf8)])
        let entry = try #require(try b.store.entry(Profile.self, forKey: "short"))
        let expiresAt = try #require(entry.expiresAt)
        #expect(expiresAt <= Date().addingTimeInterval(5.1))
        #expect(expiresAt >= Date().addingTimeInterval(4))
        // A record that never expires has no lifetime in Redis.
        try a.store.set(Profile(value: "v"), forKey: "forever")
        #expect(try server.command([Array("PTTL".utf8), recordKey(a, "forever")]) == .integer(-1))
    }

    @Test func redisDownThenRestartedEmptyBringsNothingBack() throws {
        let server = try RedisServer()
        let a = try FleetNode(server)
        let b = try FleetNode(server)
        try a.store.set(Profile(value: "old"), forKey: "overwritten")
        try a.store.set(Profile(value: "old"), forKey: "removed")
        try a.store.set(Profile(value: "kept"), forKey: "kept")
        // Held in b's own LevelDB (a read that races with a's own entries is served, not kept):
        // with Redis down, b serves "kept" only from there.
        for key in ["overwritten", "removed", "kept"] { #expect(try b.holdsLocally(key)) }

        server.kill()
        // Local tiers keep serving and accepting writes, without errors.
        let clock = ContinuousClock()
        let start = clock.now
        try a.store.set(Profile(value: "new"), forKey: "overwritten")
        try a.store.removeObject(forKey: "removed")
        try a.store.set(Profile(value: "during"), forKey: "during")
        #expect(try a.value("overwritten") == "new")
        #expect(try b.value("kept") == "kept")
        #expect(try b.value("nowhere") == nil)
        print("Four writes and reads with Redis down took \(clock.now - start)")

        try server.start()
        // Redis lost it all: a's outbox publishes the writes made meanwhile, so both nodes read
        // them (no acknowledged write is lost), and nothing overwritten or removed comes back.
        func caughtUp(_ node: FleetNode) throws -> Bool {
            let overwritten = try node.value("overwritten")
            let removed = try node.value("removed")
            let during = try node.value("during")
            return overwritten == "new" && removed == nil && during == "during"
        }
        let published = try timeUntil(within: .seconds(10)) { try caughtUp(a) && caughtUp(b) }
        #expect(published != nil)
        let clock2 = ContinuousClock()
        let watchedFrom = clock2.now
        while clock2.now - watchedFrom < .milliseconds(500) {
            for node in [a, b] {
                #expect(try node.value("overwritten") == "new")
                #expect(try node.value("removed") == nil)
                #expect(try node.value("kept") == "kept")
            }
        }
        // And the fleet works again: a write on a reaches b.
        try a.store.set(Profile(value: "after"), forKey: "overwritten")
        #expect(try timeUntil { try b.value("overwritten") == "after" } != nil)
    }

    @Test func oneFetchForConcurrentCallersOnThreeNodes() async throws {
        let server = try RedisServer()
        let nodes = try (0..<3).map { _ in try FleetNode(server) }
        let fetched = Counter()
        let values = try await withThrowingTaskGroup(of: String.self) { group in
            for node in nodes {
                for _ in 0..<10 {
                    group.addTask {
                        try await node.store.object(Profile.self, forKey: "cold") {
                            fetched.add()
                            try await Task.sleep(for: .milliseconds(200))
                            return Profile(value: "fetched")
                        }.value
                    }
                }
            }
            var values: [String] = []
            for try await value in group { values.append(value) }
            return values
        }
        #expect(values.count == 30 && Set(values) == ["fetched"])
        #expect(fetched.value == 1)
    }
}


/// Percentiles of latencies, for the test's output.
struct Distribution: CustomStringConvertible {
    let sorted: [Duration]
    init(_ samples: [Duration]) { sorted = samples.sorted() }
    func percentile(_ p: Double) -> Duration { sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))] }
    var description: String {
        func ms(_ d: Duration) -> String { String(format: "%.2f ms", Double(d.components.attoseconds) / 1e15 + Double(d.components.seconds) * 1000) }
        return "p50 \(ms(percentile(0.5))), p90 \(ms(percentile(0.9))), p99 \(ms(percentile(0.99))), max \(ms(sorted.last!))"
    }
}
