import Foundation
import ModelStore
import ModelStoreTestSupport
import Testing
@testable import ModelStoreRedis

/// Records carry versions across the fleet (their storedAt, from each database's fleet clock):
/// Redis keeps the newer of two publications of a key whatever order they arrive in, a node
/// drops a local record only for a newer version, and what a write owes the fleet is kept in the
/// database's outbox until Redis has it.
@Suite(.serialized, .enabled(if: RedisServer.isInstalled, "needs redis-server (scripts/install-dependencies)"))
struct FleetVersionTests {
    private struct Tag: Codable, Sendable, Equatable {
        var etag: String
    }

    /// A publication that arrives after a newer one (as a stalled connection's would) changes
    /// nothing in Redis and announces nothing: the script compares versions.
    @Test func anOlderPublicationArrivingLateChangesNothing() throws {
        let server = try RedisServer()
        let a = try FleetNode(server)
        let b = try FleetNode(server)
        try a.store.set(Profile(value: "v1"), forKey: "k")
        let key = recordKey(a, "k")
        guard case .string(let older) = try server.command([Array("GET".utf8), key]) else {
            Issue.record("v1 was not published")
            return
        }
        try a.store.set(Profile(value: "v2"), forKey: "k")
        #expect(try timeUntil { try b.value("k") == "v2" } != nil)
        let counter = try server.command([Array("GET".utf8), a.tier.keys.sequence])
        // v1's publication again, as it would arrive late: same script, same arguments.
        let attachment = try #require(a.tier.registry.attachments(named: "users").first)
        let generation = try #require(attachment.generation())
        let olderVersion = try #require(SharedTierVersion(record: older))
        let change = SharedTierChange(key: SharedTierKey(collection: nil, key: "k"), version: olderVersion)
        /// One publication of `value` for the key at `olderVersion`, as `a`'s publisher sends it.
        func publishLate(_ value: [UInt8], milliseconds: Int) throws -> RedisReply {
            try server.command([
                Array("EVAL".utf8), Array(RedisScripts.publishKeys.utf8), Array("6".utf8), a.tier.keys.epoch, a.tier.keys.sequence,
                a.tier.keys.stream, a.tier.keys.tagClocks(database: "users"), a.tier.keys.tagFloors(database: "users"), key,
                generation.epoch, Array("100000".utf8), Array("late".utf8), Array("users".utf8),
                InvalidationMessage.versionedKind, Array("600000".utf8), value, Array(String(milliseconds).utf8),
                Array(RedisPublisher.decimal(olderVersion.time).utf8), InvalidationMessage.versionedPart(change), [],
            ])
        }
        let reply = try publishLate(older, milliseconds: 0)
        guard case .array(let parts) = reply, parts.count == 2, case .array(let results) = parts[1] else {
            Issue.record("unexpected reply \(reply)")
            return
        }
        #expect(parts[0].integer == 0, "a fenced publication announces nothing")
        #expect(results.first?.text != "0", "the older record was set")
        #expect(try server.command([Array("GET".utf8), a.tier.keys.sequence]) == counter)
        for node in [a, b] { #expect(try node.value("k") == "v2") }
        // A late tombstone older than v2 removes nothing either.
        _ = try publishLate(Tombstone.value(olderVersion), milliseconds: 60_000)
        guard case .string(let held) = try server.command([Array("GET".utf8), key]) else {
            Issue.record("v2 was removed from Redis")
            return
        }
        #expect(SharedTierVersion(record: held).map { $0 > olderVersion } == true)
    }

    /// A removal leaves a tombstone in Redis (a miss for readers) that a late older record
    /// cannot replace; a newer write replaces it.
    @Test func aRemovalLeavesATombstoneThatNewerWritesReplace() throws {
        let server = try RedisServer()
        let a = try FleetNode(server)
        let b = try FleetNode(server)
        try a.store.set(Profile(value: "v1"), forKey: "k")
        #expect(try b.holdsLocally("k"))
        try a.store.removeObject(forKey: "k")
        guard case .string(let held) = try server.command([Array("GET".utf8), recordKey(a, "k")]) else {
            Issue.record("no tombstone in Redis")
            return
        }
        #expect(Tombstone.time(of: held) != nil)
        #expect(try timeUntil { try b.value("k") == nil } != nil)
        // b's reads are misses: the tombstone is never taken for a record (nor removed as one).
        #expect(try b.value("k") == nil)
        #expect(try server.command([Array("EXISTS".utf8), recordKey(a, "k")]) == .integer(1))
        try b.store.set(Profile(value: "v3"), forKey: "k")
        #expect(try timeUntil { try a.value("k") == "v3" } != nil)
    }

    /// `replaceMetadata` keeps the record's time but still makes a newer version, so it reaches
    /// the other nodes (an equal version would be taken for the same record).
    @Test func replacedMetadataReachesTheOtherNodes() throws {
        let server = try RedisServer()
        let a = try FleetNode(server)
        let b = try FleetNode(server)
        try a.store.set(Profile(value: "v"), forKey: "k", metadata: Tag(etag: "1"))
        #expect(try b.holdsLocally("k"))
        #expect(try a.store.replaceMetadata(Tag(etag: "2"), forKey: "k"))
        #expect(try timeUntil { try b.store.metadata(Tag.self, forKey: "k")?.etag == "2" } != nil)
    }

    /// A node keeps a local record newer than the version an invalidation names (its own later
    /// write, still unpublished, say), and drops an older one.
    @Test func anInvalidationDropsOnlyOlderLocalRecords() throws {
        let server = try RedisServer()
        let a = try FleetNode(server)
        try a.store.set(Profile(value: "mine"), forKey: "newer")
        try a.store.set(Profile(value: "mine"), forKey: "older")
        let database = try #require(a.tier.registry.attachments(named: "users").first?.database)
        let now = Date().timeIntervalSinceReferenceDate
        database.apply(.versioned([
            SharedTierChange(key: SharedTierKey(collection: nil, key: "newer"), version: SharedTierVersion(time: now - 3_600)),
            SharedTierChange(key: SharedTierKey(collection: nil, key: "older"), version: SharedTierVersion(time: now + 3_600)),
        ]))
        #expect(try a.store.snapshot().object(Profile.self, forKey: "newer")?.value == "mine")
        #expect(try a.store.snapshot().object(Profile.self, forKey: "older") == nil)
    }

    /// What a write owes the fleet stays in the database's outbox while Redis is down, and is
    /// published when the database opens again with Redis back, even after the writer closed.
    @Test func theOutboxPublishesWhatAClosedWriterOwedWhenItOpensAgain() throws {
        let server = try RedisServer()
        let b = try FleetNode(server)
        let directory = TemporaryDirectory()
        func open() throws -> (RedisTier, ModelStore) {
            let tier = try RedisTier(host: "127.0.0.1", port: server.port, keyPrefix: "test:", commandTimeout: .milliseconds(500))
            var configuration = ModelStore.Configuration()
            configuration.directory = directory.url
            configuration.sharedTier = tier
            configuration.objectCacheLimit = 0
            return (tier, try ModelStore(name: "users", policy: .never, configuration: configuration))
        }
        var (tier, store) = try open()
        try store.set(Profile(value: "v1"), forKey: "k")
        #expect(try b.holdsLocally("k"))
        server.kill()
        try store.set(Profile(value: "v2"), forKey: "k")
        try store.close()
        tier.shutdown()
        // The owed publication is in the database, not only in the closed tier's memory.
        (tier, store) = try open()
        defer {
            try? store.close()
            tier.shutdown()
        }
        let database = try #require(tier.registry.attachments(named: "users").first?.database)
        #expect(database.pendingKeys() == [SharedTierKey(collection: nil, key: "k")])
        try server.start()
        #expect(try timeUntil(within: .seconds(10)) { try b.value("k") == "v2" } != nil)
        #expect(try store.object(Profile.self, forKey: "k")?.value == "v2")
        // Settled once Redis has it (after the settle delay, kept for a Redis that loses it).
        #expect(timeUntil(within: .seconds(10)) { database.pendingKeys().isEmpty } != nil)
    }

    /// After a `FLUSHALL` under writes, Redis gets one new epoch, not two: the writer's next
    /// publication finds the epoch gone and reads it again, and the stream's entries carry the
    /// epoch, so no reader takes the restarted numbering for a rollback (which would replace it
    /// again and make the first publications after the flush unreachable).
    @Test func aFlushMakesOneNewEpochNotTwo() throws {
        let server = try RedisServer()
        let a = try FleetNode(server)
        let b = try FleetNode(server)
        try a.store.set(Profile(value: "0"), forKey: "k")
        #expect(try timeUntil { try b.value("k") == "0" } != nil)
        try server.command(["FLUSHALL"])
        var epochs: Set<[UInt8]> = []
        let clock = ContinuousClock()
        let start = clock.now
        var written = 0
        while clock.now - start < .milliseconds(1_500) {
            written += 1
            try a.store.set(Profile(value: String(written)), forKey: "k")
            if case .string(let epoch) = try server.command([Array("GET".utf8), a.tier.keys.epoch]) { epochs.insert(epoch) }
            usleep(5_000)
        }
        #expect(epochs.count == 1, "epochs after the flush: \(epochs.count)")
        #expect(try timeUntil { try b.value("k") == String(written) } != nil)
    }

    /// Redis lost its data (a flush, a restart empty) while the nodes followed its stream: a
    /// record a node holds and no node contradicts stays the answer, served by a read-through
    /// with no fetch from the source, now and on later reads (issue 37: a fleet whose Redis
    /// restarts does not go upstream for what it holds). Before, every such record was fetched again.
    @Test func aRecordNoNodeContradictsStaysTheAnswerWhenRedisLostItsData() async throws {
        let server = try RedisServer()
        let a = try FleetNode(server)
        let b = try FleetNode(server)
        try a.store.set(Profile(value: "v1"), forKey: "k")
        #expect(try b.holdsLocally("k"))
        let database = try #require(b.tier.registry.attachments(named: "users").first?.database)
        let before = try #require(database.doubtedUntil)
        // a's outbox settled (else a sends v1 to Redis again after the flush, which confirms it).
        let writer = try #require(a.tier.registry.attachments(named: "users").first?.database)
        #expect(timeUntil(within: .seconds(10)) { writer.pendingKeys().isEmpty } != nil)
        try server.command(["FLUSHALL"])
        #expect(timeUntil { (database.doubtedUntil ?? before) > before } != nil)
        let fetched = Counter()
        for _ in 0..<5 {
            let value = try await b.store.object(Profile.self, forKey: "k") {
                fetched.add()
                return Profile(value: "upstream")
            }
            #expect(value.value == "v1")
            try await Task.sleep(for: .milliseconds(20))
        }
        // A refresh would have started in the background by now.
        try await Task.sleep(for: .milliseconds(200))
        #expect(fetched.value == 0)
        #expect(try b.value("k") == "v1")
    }

    /// A node that attaches (it restarted) cannot know what it missed: a doubted record Redis
    /// knows nothing of is served by a read-through at once, as the fail-safe answer, and
    /// refreshed from its source in the background.
    @Test func aReadThroughRefreshesARecordDoubtedAtAttachThatRedisLost() async throws {
        let server = try RedisServer()
        let a = try FleetNode(server)
        let b = try FleetNode(server)
        try a.store.set(Profile(value: "v1"), forKey: "k")
        #expect(try b.holdsLocally("k"))
        let writer = try #require(a.tier.registry.attachments(named: "users").first?.database)
        #expect(timeUntil(within: .seconds(10)) { writer.pendingKeys().isEmpty } != nil)
        try b.store.close()
        try server.command(["FLUSHALL"])
        var configuration = ModelStore.Configuration()
        configuration.directory = b.directory.url
        configuration.sharedTier = b.tier
        configuration.objectCacheLimit = 0
        let reopened = try ModelStore(name: "users", policy: .never, configuration: configuration)
        defer { try? reopened.close() }
        let fetched = Counter()
        // Until a revalidation reached Redis (one that could not is retried by the next read).
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(5)
        while fetched.value == 0, clock.now < deadline {
            let value = try await reopened.object(Profile.self, forKey: "k") {
                fetched.add()
                return Profile(value: "upstream")
            }
            #expect(value.value == "v1" || value.value == "upstream")
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(timeUntil { fetched.value == 1 } != nil)
        #expect(try timeUntil { try reopened.object(Profile.self, forKey: "k")?.value == "upstream" } != nil)
        // Confirmed: the next read-through is a plain hit.
        _ = try await reopened.object(Profile.self, forKey: "k") {
            fetched.add()
            return Profile(value: "again")
        }
        #expect(fetched.value == 1)
    }
}
