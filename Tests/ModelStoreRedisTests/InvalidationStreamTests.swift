import Foundation
import ModelStore
import ModelStoreTestSupport
import Testing
@testable import ModelStoreRedis

/// The invalidation stream under hostile or missing entries, and the tier's argument checks.
@Suite(.serialized, .enabled(if: RedisServer.isInstalled, "needs redis-server (scripts/install-dependencies)"))
struct InvalidationStreamTests {
    /// Fills b's local store from a, then runs `damage`; b cannot know what it missed, so it
    /// doubts its local records: it keeps every one (none is deleted), serves them after
    /// revalidating them against Redis, and still hears of a's later writes.
    private func expectLocalDoubt(_ damage: (RedisServer, FleetNode) throws -> Void) throws {
        let server = try RedisServer()
        let a = try FleetNode(server)
        let b = try FleetNode(server)
        for number in 0..<10 { try a.store.set(Profile(value: "v"), forKey: "k\(number)") }
        // Read until all ten are local: a read that races with an invalidation is served but
        // not kept (a's own invalidations of the ten keys arrive meanwhile).
        #expect(try timeUntil { try (0..<10).allSatisfy { try b.value("k\($0)") == "v" } && b.store.count() == 10 } != nil)
        let database = try #require(b.tier.registry.attachments(named: "users").first?.database)
        let before = try #require(database.doubtedUntil)
        try damage(server, a)
        #expect(timeUntil { (database.doubtedUntil ?? before) > before } != nil)
        // `count` reads the local store only: nothing was deleted.
        #expect(try b.store.count() == 10)
        for number in 0..<10 { #expect(try b.value("k\(number)") == "v") }
        try a.store.set(Profile(value: "after"), forKey: "k0")
        #expect(try timeUntil { try b.value("k0") == "after" } != nil)
    }

    @Test func anEntryAnotherProgramAppendedMakesTheLocalRecordsDoubted() throws {
        try expectLocalDoubt { server, a in
            try server.command([Array("XADD".utf8), a.tier.keys.stream, Array("*".utf8), Array("junk".utf8), Array("1".utf8)])
        }
    }

    @Test func aSkippedSequenceNumberMakesTheLocalRecordsDoubted() throws {
        try expectLocalDoubt { server, a in
            // A well-formed entry whose number skips ahead: entries were lost before it.
            let payload = InvalidationMessage.encode(.keys([SharedTierKey(collection: nil, key: "other")]))
            try server.appendInvalidation(to: a.tier.keys, sequence: "1000", payload: payload)
            try server.command([Array("SET".utf8), a.tier.keys.sequence, Array("1000".utf8)])
        }
    }

    @Test func anUnreadablePayloadMakesTheDatabasesLocalRecordsDoubted() throws {
        try expectLocalDoubt { server, a in
            let next = (try server.command([Array("INCR".utf8), a.tier.keys.sequence]).integer) ?? 0
            try server.appendInvalidation(to: a.tier.keys, sequence: String(next), payload: Array("k9999999999:".utf8))
        }
    }

    @Test func redisFlushedWhileRunningMakesTheLocalRecordsDoubted() throws {
        try expectLocalDoubt { server, _ in try server.command(["FLUSHALL"]) }
    }

    @Test func hostilePayloadsNeverDecodeToSomethingElse() {
        for bytes: [UInt8] in [[], Array("kd".utf8), Array("kd5:ab".utf8), Array("p".utf8),
            Array("pc3:ab".utf8), Array("t".utf8), Array("t2:abc".utf8), Array("ax".utf8), Array("z".utf8),
            Array("kd9999999999:".utf8), Array("kd2:\u{FF}\u{FE}".utf8), [UInt8(ascii: "k"), UInt8(ascii: "d"), UInt8(ascii: "2"), UInt8(ascii: ":"), 0xFF, 0xFE]]
        {
            #expect(InvalidationMessage.decode(bytes) == nil, "\(bytes)")
        }
        let invalidations: [SharedTierInvalidation] = [
            .keys([SharedTierKey(collection: nil, key: "a:b"), SharedTierKey(collection: "c\0", key: "é")]),
            .keys([]), .prefix("", collection: nil), .prefix("x:", collection: "b:c"), .tag("t\0"), .database,
        ]
        for invalidation in invalidations {
            #expect(InvalidationMessage.decode(InvalidationMessage.encode(invalidation)) == invalidation)
        }
    }

    @Test func badArgumentsAreTypedErrors() {
        #expect(throws: ModelStoreError.self) { try RedisTier(host: "", keyPrefix: "p:") }
        #expect(throws: ModelStoreError.self) { try RedisTier(host: "h", port: 0, keyPrefix: "p:") }
        #expect(throws: ModelStoreError.self) { try RedisTier(host: "h", port: 70_000, keyPrefix: "p:") }
        #expect(throws: ModelStoreError.self) { try RedisTier(host: "h", keyPrefix: "p:", database: -1) }
        #expect(throws: ModelStoreError.self) { try RedisTier(host: "h", keyPrefix: "p:", commandTimeout: .zero) }
        #expect(throws: ModelStoreError.self) { try RedisTier(host: "h", keyPrefix: "p:", connectTimeout: .seconds(-1)) }
        #expect(throws: ModelStoreError.self) { try RedisTier(host: "h", keyPrefix: "p:", streamLength: 0) }
    }

    /// A writer's publications run one at a time, so each number is above the last one's unless
    /// the counter went back; publications after a restore from an older snapshot (retried ones)
    /// can raise the counter past the highest number noted before the reader checks, so the
    /// going back must be kept as a flag, not only as a comparison the next numbers undo.
    @Test func aPublicationNumberedNotAboveAnEarlierOneIsKeptAsAGoingBack() {
        let published = PublishedSequence()
        let epoch = Array("one".utf8)
        published.note(3, epoch: epoch)
        published.note(4, epoch: epoch)
        #expect(!published.takeWentBack())
        // Restored with the counter at 2: the next two publications get 3 and 4 again.
        published.note(3, epoch: epoch)
        published.note(4, epoch: epoch)
        #expect(published.value(in: epoch) == 4)
        #expect(published.takeWentBack())
        #expect(!published.takeWentBack())
        // A reset (a new epoch: numbers start again) is not a going back, nor does it drop one.
        published.note(1, epoch: epoch)
        published.reset()
        #expect(published.takeWentBack())
        published.note(1, epoch: epoch)
        #expect(!published.takeWentBack())
        // Numbers of a new epoch (Redis flushed, restarted empty) start again: no going back.
        published.note(9, epoch: epoch)
        published.note(1, epoch: Array("two".utf8))
        #expect(!published.takeWentBack())
        #expect(published.value(in: epoch) == 0)
    }

    /// Versioned keys round-trip, and a truncated version is refused.
    @Test func versionedPayloadsRoundTrip() {
        let changes = [
            SharedTierChange(key: SharedTierKey(collection: nil, key: "a:b"), version: SharedTierVersion(time: 812_345_678.123_456_7)),
            SharedTierChange(key: SharedTierKey(collection: "c\0", key: "é"), version: SharedTierVersion(time: -1.5)),
        ]
        let encoded = InvalidationMessage.encode(.versioned(changes))
        #expect(InvalidationMessage.decode(encoded) == .versioned(changes))
        #expect(InvalidationMessage.decode(Array(encoded.dropLast())) == nil)
    }
}
