import Foundation
import ModelStore
import ModelStoreTestSupport
import Testing
@testable import ModelStoreRedis

/// A removal by tag makes unreachable only the records that carry the tag (per-tag removal
/// clocks, TagClocks.swift), on every node and in Redis, and no record it covered comes back: not
/// through a late publication, not after Redis loses its data, not on a node that was away.
@Suite(.serialized, .enabled(if: RedisServer.isInstalled, "needs redis-server (scripts/install-dependencies)"))
struct FleetTagRemovalTests {
    /// How many records the hit-ratio test writes (`MODELSTORE_TAG_RATIO_RECORDS`; the issue's
    /// measure is 100,000); 1 % of them carry the tag.
    static let ratioRecords = ProcessInfo.processInfo.environment["MODELSTORE_TAG_RATIO_RECORDS"].flatMap(Int.init) ?? 2_000

    /// After a removal of a tag that 1 % of the records carry, a node that holds none of them
    /// locally still finds every other record in Redis (the issue asks for 99 %); before, the
    /// removal raised the database's generation and it found none.
    @Test func untaggedRecordsStayReachableInRedisAfterATagRemoval() async throws {
        let server = try RedisServer()
        let a = try FleetNode(server)
        let total = Self.ratioRecords
        let tagged = Set(stride(from: 0, to: total, by: 100))
        let untagged = (0..<total).filter { !tagged.contains($0) }
        try await a.store.importObjects(untagged.map { Profile(value: "v\($0)") }, key: { "r:\($0.value.dropFirst())" })
        for index in tagged { try a.store.set(Profile(value: "v\(index)"), forKey: "r:\(index)", tags: ["user:42"]) }
        // A node that held them all locally, and one that holds none.
        let b = try FleetNode(server)
        for index in tagged { #expect(try b.holdsLocally("r:\(index)")) }
        #expect(timeUntil { a.caughtUp() && b.caughtUp() } != nil)

        let removed = try a.store.removeObjects(taggedWith: "user:42")
        #expect(removed == tagged.count)
        let c = try FleetNode(server)
        #expect(timeUntil { b.caughtUp() && c.caughtUp() } != nil)
        let clock = ContinuousClock()
        let start = clock.now
        var found = 0
        for index in untagged where try c.value("r:\(index)") == "v\(index)" { found += 1 }
        let elapsed = clock.now - start
        let ratio = Double(found) / Double(untagged.count)
        print("Tag removal of 1 % of \(total) records: a node holding none found \(found) of \(untagged.count) others in Redis (\(ratio * 100) %), \(elapsed)")
        #expect(ratio >= 0.99)
        #expect(found == untagged.count, "every untagged record stays reachable")
        for node in [a, b, c] {
            for index in tagged { #expect(try node.value("r:\(index)") == nil, "a record carrying the tag was read after its removal") }
        }
    }

    /// Every node loses the tagged records, in every collection, whether it held them locally or
    /// reads them from Redis; records without the tag (or with another) stay on every node.
    @Test func taggedRecordsAreGoneOnEveryNodeAndTheOthersStay() throws {
        let server = try RedisServer()
        let a = try FleetNode(server)
        let b = try FleetNode(server)
        try a.store.set(Profile(value: "t"), forKey: "tagged", tags: ["team", "org"])
        try a.store.set(Profile(value: "o"), forKey: "other", tags: ["org"])
        try a.store.set(Profile(value: "u"), forKey: "untagged")
        try a.store.collection("orders").set(Profile(value: "c"), forKey: "order", tags: ["team"])
        for key in ["tagged", "other", "untagged"] { #expect(try b.holdsLocally(key)) }
        #expect(try b.store.collection("orders").object(Profile.self, forKey: "order") != nil)

        _ = try b.store.removeObjects(taggedWith: "team")
        let c = try FleetNode(server)
        #expect(timeUntil { a.caughtUp() && c.caughtUp() } != nil)
        for node in [a, b, c] {
            #expect(try node.value("tagged") == nil)
            #expect(try node.store.collection("orders").object(Profile.self, forKey: "order") == nil)
            #expect(try node.value("other") == "o")
            #expect(try node.value("untagged") == "u")
        }
        // Redis still holds the records: a removal by tag changes no record key, only the clock.
        guard case .string = try server.command([Array("GET".utf8), recordKey(a, "tagged")]) else {
            Issue.record("the tagged record's key was changed")
            return
        }
        guard case .array(let clocks) = try server.command([
            Array("ZRANGE".utf8), a.tier.keys.tagClocks(database: "users"), Array("0".utf8), Array("-1".utf8),
        ]) else {
            Issue.record("no tag clocks in Redis")
            return
        }
        #expect(clocks.compactMap(\.text) == ["team"])
    }

    /// A record written with the tag after its removal is read on every node, a node that holds
    /// nothing included; one written on another node, tagged before, re-tagged after, too.
    @Test func aRecordTaggedAndWrittenAfterTheRemovalIsVisible() throws {
        let server = try RedisServer()
        let a = try FleetNode(server)
        let b = try FleetNode(server)
        try a.store.set(Profile(value: "v1"), forKey: "k", tags: ["t"])
        try a.store.set(Profile(value: "j1"), forKey: "j", tags: ["t"])
        #expect(try b.holdsLocally("k"))
        _ = try a.store.removeObjects(taggedWith: "t")
        #expect(timeUntil { b.caughtUp() } != nil)
        #expect(try b.value("k") == nil)
        try a.store.set(Profile(value: "v2"), forKey: "k", tags: ["t"])
        try b.store.set(Profile(value: "j2"), forKey: "j", tags: ["t", "u"])
        let c = try FleetNode(server)
        #expect(timeUntil { a.caughtUp() && b.caughtUp() && c.caughtUp() } != nil)
        for node in [a, b, c] {
            #expect(try node.value("k") == "v2")
            #expect(try node.value("j") == "j2")
        }
    }

    /// A publication of a tagged record written before the removal that reaches Redis after it
    /// (a stalled connection, an outbox published late) is refused by the script, and leaves a
    /// tombstone of its own version: no node reads it, nor the older value it replaced.
    @Test func aLatePublicationOfATaggedRecordWrittenBeforeTheRemovalIsRefused() throws {
        let server = try RedisServer()
        let a = try FleetNode(server)
        let b = try FleetNode(server)
        // b writes; a, which removes the tag, never holds k (so its removal names no key).
        try b.store.set(Profile(value: "v0"), forKey: "k")
        let key = recordKey(a, "k")
        guard case .string(let older) = try server.command([Array("GET".utf8), key]) else {
            Issue.record("v0 was not published")
            return
        }
        try b.store.set(Profile(value: "v1"), forKey: "k", tags: ["t"])
        guard case .string(let tagged) = try server.command([Array("GET".utf8), key]) else {
            Issue.record("v1 was not published")
            return
        }
        // As if v1's publication had not arrived yet: Redis holds v0.
        try server.command([Array("SET".utf8), key, older])
        _ = try a.store.removeObjects(taggedWith: "t")
        #expect(timeUntil { b.caughtUp() } != nil)
        let version = try #require(SharedTierVersion(record: tagged))
        let generation = try #require(a.tier.registry.attachments(named: "users").first?.generation())
        let change = SharedTierChange(key: SharedTierKey(collection: nil, key: "k"), version: version)
        // v1's publication, arriving now: the publisher's script and arguments.
        let reply = try server.command([
            Array("EVAL".utf8), Array(RedisScripts.publishKeys.utf8), Array("6".utf8), a.tier.keys.epoch, a.tier.keys.sequence,
            a.tier.keys.stream, a.tier.keys.tagClocks(database: "users"), a.tier.keys.tagFloors(database: "users"), key,
            generation.epoch, Array("100000".utf8), Array("late".utf8), Array("users".utf8), InvalidationMessage.versionedKind,
            Array("600000".utf8), tagged, Array("0".utf8), Array(RedisPublisher.decimal(version.time).utf8),
            InvalidationMessage.versionedPart(change), RedisAttachment.encodedTags(["t"]),
        ])
        guard case .array(let parts) = reply, parts.count == 2, case .array(let results) = parts[1] else {
            Issue.record("unexpected reply \(reply)")
            return
        }
        #expect(results.first?.text != "0", "the record a tag removal covered was stored")
        guard case .string(let held) = try server.command([Array("GET".utf8), key]) else {
            Issue.record("nothing under the key")
            return
        }
        #expect(Tombstone.time(of: held) == version.time, "a tombstone of the refused record's version")
        let c = try FleetNode(server)
        #expect(timeUntil { a.caughtUp() && b.caughtUp() && c.caughtUp() } != nil)
        for node in [a, b, c] { #expect(try node.value("k") == nil) }
    }

    /// A node that was closed while a tag was removed drops its own copies when it opens again,
    /// even where Redis no longer holds the record (expired, evicted): the clocks it loads are
    /// applied to its store.
    @Test func aNodeThatWasAwayDropsItsCopiesOfRecordsRemovedByTag() throws {
        let server = try RedisServer()
        let a = try FleetNode(server)
        var b: FleetNode? = try FleetNode(server)
        try a.store.set(Profile(value: "v1"), forKey: "k", tags: ["t"])
        try a.store.set(Profile(value: "u"), forKey: "u")
        #expect(try b!.holdsLocally("k"))
        #expect(try b!.holdsLocally("u"))
        let directory = b!.directory
        try b!.store.close()
        b!.tier.shutdown()
        b = nil
        _ = try a.store.removeObjects(taggedWith: "t")
        try server.command([Array("DEL".utf8), recordKey(a, "k")])
        let again = try FleetNode(port: server.port, directory: directory)
        #expect(try again.value("k") == nil)
        #expect(try again.value("u") == "u")
    }

    /// What makes Redis lose its data in ``aNodeAwayDuringARedisLossStillHonoursTheTagRemoval(_:)``.
    enum Loss: String, CaseIterable, Sendable {
        case flush, restartEmpty
    }

    /// Redis loses its data (flushed, restarted empty) right after a tag removal, while a node
    /// that holds a tagged record is cut off (it never read the removal's entry). The remover
    /// restores its clocks in Redis before anything else; the node, once back, loads them and
    /// drops its copy, and a node started after reads nothing the removal covered. Untagged
    /// records stay.
    @Test(arguments: Loss.allCases) func aNodeAwayDuringARedisLossStillHonoursTheTagRemoval(_ loss: Loss) throws {
        let server = try RedisServer()
        let proxy = try FaultProxy(server)
        let a = try FleetNode(port: server.port, commandTimeout: .milliseconds(250))
        let c = try FleetNode(port: proxy.port, commandTimeout: .milliseconds(250))
        try a.store.set(Profile(value: "v1"), forKey: "k", tags: ["t"])
        try a.store.set(Profile(value: "u"), forKey: "u")
        #expect(try c.holdsLocally("k"))
        #expect(try c.holdsLocally("u"))
        try proxy.partition()
        _ = try a.store.removeObjects(taggedWith: "t")
        switch loss {
        case .flush: try server.command(["FLUSHALL"])
        case .restartEmpty:
            server.kill()
            try server.start()
        }
        let clocks = a.tier.keys.tagClocks(database: "users")
        let restored = try timeUntil(within: .seconds(10)) {
            guard case .string = try server.command([Array("ZSCORE".utf8), clocks, Array("t".utf8)]) else { return false }
            return true
        }
        #expect(restored != nil, "a did not restore its tag clock in Redis")
        try proxy.heal()
        #expect(try timeUntil(within: .seconds(10)) { try c.value("k") == nil } != nil, "c still reads the removed record")
        #expect(try c.value("u") == "u")
        let d = try FleetNode(server)
        try a.store.set(Profile(value: "w"), forKey: "w")
        #expect(try timeUntil { try d.value("w") == "w" } != nil)
        #expect(try d.value("k") == nil)
    }

    /// A clock older than the tombstone lifetime is folded into its bucket's floor, in Redis (at
    /// the next tag removal) and on each node: the clock goes, the records it covered stay
    /// unreachable (Redis still holds them), and a record written with the tag after is read.
    /// Real time passes (1.2 s): Redis's own clock decides what expired.
    @Test func anExpiredClockIsFoldedAndStillCoversItsRecords() throws {
        let server = try RedisServer()
        let a = try FleetNode(port: server.port, tombstoneLifetime: .seconds(1))
        // b writes; a, which removes the tag, never holds k (so its removal names no key).
        let b = try FleetNode(port: server.port, tombstoneLifetime: .seconds(1))
        try b.store.set(Profile(value: "v1"), forKey: "k", tags: ["t"])
        try b.store.set(Profile(value: "u"), forKey: "u")
        let version = try #require(try b.store.entry(Profile.self, forKey: "k")).storedAt.timeIntervalSinceReferenceDate
        #expect(timeUntil { a.caughtUp() } != nil)
        _ = try a.store.removeObjects(taggedWith: "t")
        Thread.sleep(forTimeInterval: 1.2)
        _ = try a.store.removeObjects(taggedWith: "other")
        let clocks = a.tier.keys.tagClocks(database: "users")
        #expect(try server.command([Array("ZSCORE".utf8), clocks, Array("t".utf8)]) == .null, "the clock was not folded")
        guard case .string(let floors) = try server.command([Array("GET".utf8), a.tier.keys.tagFloors(database: "users")]) else {
            Issue.record("no floors in Redis")
            return
        }
        #expect(TagClocks.floors(from: floors)[TagClocks.bucket(of: "t")] >= version)
        guard case .string = try server.command([Array("GET".utf8), recordKey(a, "k")]) else {
            Issue.record("Redis no longer holds the tagged record: the test proves nothing")
            return
        }
        let c = try FleetNode(port: server.port, tombstoneLifetime: .seconds(1))
        #expect(try c.value("k") == nil, "a record a folded clock covers was read")
        #expect(try c.value("u") == "u")
        try a.store.set(Profile(value: "v2"), forKey: "k", tags: ["t"])
        #expect(try timeUntil { try c.value("k") == "v2" } != nil)
    }
}

/// A randomized check against a reference: after any seeded sequence of sets (with random
/// tags), removals of keys, tags and prefixes on any of 2–3 nodes, and nodes replaced by fresh
/// ones (which hold nothing and read Redis), every read on every node returns the reference's
/// value or misses; never a value the reference no longer holds. After each operation the test
/// waits until every node has read the stream up to the counter, so a read checks what the
/// fleet settled on, not the invalidation latency. The seed is printed; set
/// `MODELSTORE_TAG_SEED` to replay one, `MODELSTORE_TAG_STEPS` for longer runs,
/// `MODELSTORE_TAG_TRACE=1` to print each operation.
@Suite(.serialized, .enabled(if: RedisServer.isInstalled, "needs redis-server (scripts/install-dependencies)"))
struct FleetTagReferenceTests {
    static let seeds: [UInt64] = {
        if let seed = ProcessInfo.processInfo.environment["MODELSTORE_TAG_SEED"].flatMap(UInt64.init) { return [seed] }
        return [1, 37, UInt64.random(in: 0...UInt64.max)]
    }()
    static let steps = ProcessInfo.processInfo.environment["MODELSTORE_TAG_STEPS"].flatMap(Int.init) ?? 150

    static let keys = ["a:1", "a:2", "a:3", "ab:1", "b:1", "b:2", "b:3", "c:1", "c:2", "c:3"]
    static let tags = ["x", "y", "z"]
    static let prefixes = ["a:", "a", "b:", "c:"]

    @Test(arguments: seeds) func everyReadAgreesWithTheReferenceOrMisses(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let server = try RedisServer()
        var nodes = try (0..<Int.random(in: 2...3, using: &random)).map { _ in try FleetNode(server) }
        /// What the fleet holds after every acknowledged operation: value and tags per key.
        var reference: [String: (value: String, tags: Set<String>, step: Int)] = [:]
        /// The step of the last removal by prefix: it raises the database's generation in Redis.
        var lastPrefixRemoval = -1
        var violations: [String] = []
        var redisReads = 0
        func settle() throws {
            let settled = timeUntil { nodes.allSatisfy { $0.caughtUp() } }
            if settled == nil { violations.append("the nodes did not catch up with the stream") }
        }
        func check(_ node: Int, _ key: String, step: Int, _ what: String) throws {
            let read = try nodes[node].value(key)
            guard let read else { return }
            if read != reference[key]?.value {
                violations.append("step \(step) (\(what)): node \(node) read \(key)=\(read), the reference holds \(reference[key]?.value ?? "nothing")")
            }
        }
        for step in 0..<Self.steps {
            let node = Int.random(in: 0..<nodes.count, using: &random)
            let store = nodes[node].store
            let roll = Int.random(in: 0..<100, using: &random)
            let what: String
            switch roll {
            case 0..<60:
                let key = Self.keys.randomElement(using: &random)!
                let tags = Self.tags.filter { _ in Int.random(in: 0..<5, using: &random) < 2 }
                let value = "s\(step)"
                try store.set(Profile(value: value), forKey: key, tags: tags)
                reference[key] = (value, Set(tags), step)
                what = "node \(node) set \(key)=\(value) tags \(tags)"
            case 60..<68:
                let key = Self.keys.randomElement(using: &random)!
                try store.removeObject(forKey: key)
                reference[key] = nil
                what = "node \(node) removed \(key)"
            case 68..<88:
                let tag = Self.tags.randomElement(using: &random)!
                _ = try store.removeObjects(taggedWith: tag)
                reference = reference.filter { !$0.value.tags.contains(tag) }
                what = "node \(node) removed tag \(tag)"
            case 88..<94:
                let prefix = Self.prefixes.randomElement(using: &random)!
                try store.removeObjects(withPrefix: prefix)
                reference = reference.filter { !$0.key.hasPrefix(prefix) }
                lastPrefixRemoval = step
                what = "node \(node) removed prefix \(prefix)"
            default:
                // A fresh node in its place: it holds nothing, so it reads what it can from Redis.
                nodes[node] = try FleetNode(server)
                what = "node \(node) replaced by a fresh one"
            }
            try settle()
            if ProcessInfo.processInfo.environment["MODELSTORE_TAG_TRACE"] == "1" { print("step \(step): \(what)") }
            for _ in 0..<4 {
                try check(Int.random(in: 0..<nodes.count, using: &random), Self.keys.randomElement(using: &random)!, step: step, what)
            }
            if !violations.isEmpty { break }
        }
        // A node that holds nothing reads every key from Redis.
        let fresh = try FleetNode(server)
        nodes.append(fresh)
        try settle()
        for key in Self.keys {
            try check(nodes.count - 1, key, step: Self.steps, "a fresh node at the end")
            if try fresh.value(key) != nil { redisReads += 1 }
        }
        // Keys written after the last removal by prefix (which made every record in Redis
        // unreachable): tag removals since left every one they did not cover reachable, and
        // nothing expires here, so the fresh node finds each in Redis.
        let held = reference.values.filter { $0.step > lastPrefixRemoval }.count
        print("Tag reference check, seed \(seed): \(Self.steps) steps, \(violations.count) violations; a fresh node found \(redisReads) of the \(reference.count) keys the reference holds in Redis, \(held) written since the last removal by prefix")
        #expect(violations.isEmpty, "seed \(seed): \(violations.prefix(5).joined(separator: "; "))")
        #expect(redisReads >= held, "seed \(seed): a fresh node found \(redisReads) of \(held) keys in Redis")
    }
}
