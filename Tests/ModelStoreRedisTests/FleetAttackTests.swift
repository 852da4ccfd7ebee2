import Foundation
import ModelStore
import ModelStoreTestSupport
import Testing
@testable import ModelStoreRedis

/// Attacks on the shared tier that an outside review would try: Redis restored from an older
/// snapshot, hostile values under the tier's own keys (epoch, sequence counter, stream,
/// generation), hostile stream entries, and a node whose invalidation reader connects late.
@Suite(.serialized, .enabled(if: RedisServer.isInstalled, "needs redis-server (scripts/install-dependencies)"))
struct FleetAttackTests {
    /// Two nodes over `server`: a wrote "v1" under "k" and "removed", b holds both in its own
    /// LevelDB, and Redis saved a snapshot of that moment (to be restored later).
    static func twoNodesAfterASnapshot(_ server: RedisServer) throws -> (FleetNode, FleetNode) {
        let a = try FleetNode(server)
        let b = try FleetNode(server)
        try a.store.set(Profile(value: "v1"), forKey: "k")
        try a.store.set(Profile(value: "v1"), forKey: "removed")
        #expect(try b.holdsLocally("k") && b.holdsLocally("removed"))
        try server.command(["SAVE"])
        return (a, b)
    }

    /// Redis restarted WITH its data, from a snapshot older than the last writes: the records,
    /// the sequence counter and the stream go back in time while the epoch stays. A removed or
    /// overwritten value must not come back on any node, including one that starts afterwards.
    @Test func aRedisRestoredFromAnOlderSnapshotBringsNothingBack() throws {
        let server = try RedisServer(persistent: true)
        let a = try FleetNode(server)
        let b = try FleetNode(server)
        try a.store.set(Profile(value: "old"), forKey: "overwritten")
        try a.store.set(Profile(value: "old"), forKey: "removed")
        try a.store.set(Profile(value: "kept"), forKey: "kept")
        for key in ["overwritten", "removed", "kept"] { #expect(try b.value(key) != nil) }
        try server.command(["SAVE"])

        try a.store.set(Profile(value: "new"), forKey: "overwritten")
        try a.store.removeObject(forKey: "removed")
        #expect(try timeUntil { try b.value("overwritten") == "new" && b.value("removed") == nil } != nil)

        // Killed, then started from the snapshot: "removed" and the old "overwritten" are back in Redis.
        server.kill()
        try server.start()
        #expect(try server.command([Array("EXISTS".utf8), Array("test:e".utf8)]) == .integer(1))
        let c = try FleetNode(server)
        let nodes = [a, b, c]
        #expect(
            try timeUntil(within: .seconds(10)) {
                try nodes.allSatisfy { try $0.value("overwritten") != "old" && $0.value("removed") == nil }
            } != nil)
        let clock = ContinuousClock()
        let watchedFrom = clock.now
        var staleReads = 0
        while clock.now - watchedFrom < .milliseconds(600) {
            for node in nodes where try node.value("overwritten") == "old" || node.value("removed") != nil {
                staleReads += 1
            }
        }
        #expect(staleReads == 0)
        // And the fleet works again.
        try a.store.set(Profile(value: "after"), forKey: "overwritten")
        #expect(try timeUntil { try b.value("overwritten") == "after" && c.value("overwritten") == "after" } != nil)
    }

    /// Another client damages or deletes one of the tier's own keys, or kills every connection.
    /// Invalidations (by key and by prefix)
    /// must keep reaching other nodes, a node that starts afterwards must read from Redis again,
    /// and no reader spins on the error (reconnecting in a loop).
    @Test(arguments: [
        "epoch is a hash", "epoch is empty", "sequence is garbage", "sequence is a list", "sequence is huge",
        "stream is a string", "generation is a hash", "generation is garbage", "generation is huge",
        "generation is negative", "epoch deleted", "sequence deleted", "stream deleted",
        "every connection killed", "an entry with a huge sequence number", "an entry with a huge generation",
    ])
    func hostileValuesUnderTheTiersOwnKeysNeverStopInvalidations(damage: String) throws {
        let server = try RedisServer()
        let a = try FleetNode(server)
        let b = try FleetNode(server)
        try a.store.set(Profile(value: "v1"), forKey: "k")
        #expect(try b.holdsLocally("k"))
        let keys = a.tier.keys
        let generation = keys.generation(database: "users")
        func entry(sequence: String, generation: String) throws {
            try server.appendInvalidation(
                to: keys, sequence: sequence, generation: generation, payload: InvalidationMessage.encode(.tag("none")))
        }
        switch damage {
        case "epoch is a hash":
            try server.command([Array("DEL".utf8), keys.epoch])
            try server.command([Array("HSET".utf8), keys.epoch, Array("f".utf8), Array("v".utf8)])
        case "epoch is empty": try server.command([Array("SET".utf8), keys.epoch, []])
        case "sequence is garbage": try server.command([Array("SET".utf8), keys.sequence, Array("garbage".utf8)])
        case "sequence is a list":
            try server.command([Array("DEL".utf8), keys.sequence])
            try server.command([Array("RPUSH".utf8), keys.sequence, Array("x".utf8)])
        case "sequence is huge":
            try server.command([Array("SET".utf8), keys.sequence, Array(String(Int64.max).utf8)])
        case "stream is a string":
            try server.command([Array("DEL".utf8), keys.stream])
            try server.command([Array("SET".utf8), keys.stream, Array("junk".utf8)])
        case "generation is a hash":
            try server.command([Array("HSET".utf8), generation, Array("f".utf8), Array("v".utf8)])
        case "generation is garbage": try server.command([Array("SET".utf8), generation, Array("\u{FF}x".utf8)])
        case "generation is huge": try server.command([Array("SET".utf8), generation, Array(String(Int64.max).utf8)])
        case "generation is negative": try server.command([Array("SET".utf8), generation, Array("-7".utf8)])
        case "epoch deleted": try server.command([Array("DEL".utf8), keys.epoch])
        case "sequence deleted": try server.command([Array("DEL".utf8), keys.sequence])
        case "stream deleted": try server.command([Array("DEL".utf8), keys.stream])
        case "every connection killed": try server.command(["CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes"])
        case "an entry with a huge sequence number": try entry(sequence: String(Int64.max), generation: "")
        case "an entry with a huge generation":
            let next = try #require(try server.command([Array("INCR".utf8), keys.sequence]).integer)
            try entry(sequence: String(next), generation: String(Int64.max))
        default: Issue.record("unknown damage \(damage)")
        }

        // b never serves the overwritten value (it may miss: a damaged counter is a Redis that
        // went back in time, and then every record in Redis is dropped).
        try a.store.set(Profile(value: "v2"), forKey: "k")
        #expect(try timeUntil { try b.value("k") != "v1" } != nil, "an overwrite after: \(damage)")
        // Then the fleet works again: writes (repeated until the damage is handled) reach b.
        #expect(try a.writeReaches(b, key: "k", value: "v3"), "a write after: \(damage)")
        try a.store.removeObject(forKey: "k")
        #expect(try timeUntil { try b.value("k") == nil } != nil, "a removal after: \(damage)")
        // A node that starts now reads through Redis (before any bulk removal makes every node
        // read the generation again).
        let c = try FleetNode(server)
        #expect(try a.writeReaches(c, key: "s", value: "shared"), "a read through Redis after: \(damage)")
        try a.store.removeObject(forKey: "s")
        #expect(try timeUntil { try c.value("s") == nil && b.value("s") == nil } != nil, "\(damage)")
        #expect(try a.writeReaches(b, key: "p:1", value: "p"), "a write after: \(damage)")
        try a.store.removeObjects(withPrefix: "p:")
        #expect(try timeUntil { try b.value("p:1") == nil } != nil, "a removal by prefix after: \(damage)")
        // No reader or pool reconnects in a loop on the damage.
        let stats = try #require(try server.command(["INFO", "stats"]).text)
        let received = stats.split(whereSeparator: \.isNewline).first { $0.hasPrefix("total_connections_received:") }
        let connections = received.flatMap { Int($0.split(separator: ":")[1]) } ?? .max
        #expect(connections < 200, "\(connections) connections after: \(damage)")
    }

    /// A node whose invalidation reader first connects after the node already read from Redis
    /// (Redis was down when it started, so the reader backed off): the reader starts at the
    /// stream's end, so what was written between that read and the reader's first connection
    /// must not leave the node with the value it read.
    @Test func aNodeWhoseReaderConnectsLateKeepsNothingStale() throws {
        let server = try RedisServer()
        server.kill()
        let b = try FleetNode(server)
        // Its reader fails to connect, backing off longer each time (50 ms, doubling).
        #expect(timeUntil(within: .seconds(10)) { b.tier.reader.failedConnections >= 5 } != nil)
        try server.start()
        let a = try FleetNode(server)
        try a.store.set(Profile(value: "v1"), forKey: "k")
        _ = try b.value("k")
        try a.store.set(Profile(value: "v2"), forKey: "k")
        #expect(timeUntil(within: .seconds(10)) { b.tier.reader.isFollowing } != nil)
        #expect(try timeUntil { try b.value("k") == "v2" } != nil)
        #expect(try b.value("k") == "v2")
    }

    /// Two stores of one process, over one tier, with the same database name in two directories:
    /// two local copies of one fleet database. Each must hear of the other nodes' writes, and of
    /// each other's (the stream entry comes from their own process).
    @Test func twoStoresOfOneNameOverOneTierInOneProcessBothHearEveryWrite() throws {
        let server = try RedisServer()
        let a = try FleetNode(server)
        let tier = try RedisTier(host: "127.0.0.1", port: server.port, keyPrefix: "test:", commandTimeout: .milliseconds(500))
        defer { tier.shutdown() }
        let directories = [TemporaryDirectory(), TemporaryDirectory()]
        let stores = try directories.map { directory in
            var configuration = ModelStore.Configuration()
            configuration.directory = directory.url
            configuration.sharedTier = tier
            configuration.objectCacheLimit = 0
            return try ModelStore(name: "users", policy: .never, configuration: configuration)
        }
        defer { for store in stores { try? store.close() } }
        func value(_ store: ModelStore, _ key: String) throws -> String? { try store.object(Profile.self, forKey: key)?.value }

        try a.store.set(Profile(value: "v1"), forKey: "k")
        for store in stores {
            #expect(try timeUntil { try value(store, "k") == "v1" && store.snapshot().object(Profile.self, forKey: "k") != nil } != nil)
        }
        try a.store.set(Profile(value: "v2"), forKey: "k")
        for (index, store) in stores.enumerated() {
            #expect(try timeUntil { try value(store, "k") == "v2" } != nil, "store \(index) after a's overwrite")
        }
        // One of the two overwrites: the other (same process, same node name) must drop its copy.
        #expect(try timeUntil { try stores[1].snapshot().object(Profile.self, forKey: "k") != nil } != nil)
        try stores[0].set(Profile(value: "v3"), forKey: "k")
        #expect(try timeUntil { try value(stores[1], "k") == "v3" && a.value("k") == "v3" } != nil)
        try stores[1].removeObject(forKey: "k")
        #expect(try timeUntil { try value(stores[0], "k") == nil && a.value("k") == nil } != nil)
    }

    /// A write made while Redis is unreachable waits in the publisher; the store then closes.
    /// Redis comes back with its data (so the other nodes have no reason to clear): the queued
    /// write must still reach them, as a removal at least, never be dropped with the close.
    @Test func aWriteQueuedWhileRedisIsDownStillReachesTheFleetAfterTheStoreCloses() throws {
        let server = try RedisServer(persistent: true)
        let (a, b) = try Self.twoNodesAfterASnapshot(server)

        server.kill()
        try a.store.set(Profile(value: "v2"), forKey: "k")
        try a.store.removeObject(forKey: "removed")
        try a.store.close()
        try server.start()
        #expect(try timeUntil(within: .seconds(15)) { try b.value("k") != "v1" && b.value("removed") == nil } != nil)
    }

    /// Redis stalls (`CLIENT PAUSE`, every command held) for longer than the command timeout:
    /// writers and readers on a local miss wait about the timeout at most, local hits do not
    /// wait, nothing throws, and the writes made meanwhile reach the other node afterwards.
    @Test func aRedisThatStallsPastTheCommandTimeoutHoldsNobodyMuchLonger() throws {
        let server = try RedisServer()
        let a = try FleetNode(server)
        let b = try FleetNode(server)
        try a.store.set(Profile(value: "v1"), forKey: "k")
        #expect(try b.holdsLocally("k"))
        try server.command(["CLIENT", "PAUSE", "3000", "ALL"])
        let clock = ContinuousClock()
        // The command timeout is 500 ms: a writer waits at most twice that for its publication, a
        // reader for a connection then a reply.
        let limit = Duration.milliseconds(1_500)
        var slowest = Duration.zero
        for index in 0..<5 {
            var start = clock.now
            try a.store.set(Profile(value: "w\(index)"), forKey: "w\(index)")
            slowest = max(slowest, clock.now - start)
            start = clock.now
            #expect(try b.value("k") == "v1")
            #expect(clock.now - start < .milliseconds(100), "a local hit waited for Redis")
            start = clock.now
            #expect(try b.value("nowhere\(index)") == nil)
            slowest = max(slowest, clock.now - start)
        }
        print("Slowest write or local miss while Redis stalled: \(slowest)")
        #expect(slowest < limit)
        #expect(try timeUntil(within: .seconds(15)) { try b.value("w4") == "w4" && b.value("w0") == "w0" } != nil)
    }

    /// Twenty nodes, each with its own tier, store, reads and writes, then closed and shut down
    /// (or only released): none leaves a connection to Redis behind.
    @Test(arguments: [true, false]) func tiersThatGoAwayLeaveNoConnectionBehind(shutDown: Bool) throws {
        let server = try RedisServer()
        func connectedClients() throws -> Int {
            let info = try #require(try server.command(["INFO", "clients"]).text)
            let line = info.split(whereSeparator: \.isNewline).first { $0.hasPrefix("connected_clients:") }
            // Less the connection that asks.
            return (line.flatMap { Int($0.split(separator: ":")[1]) } ?? .max) - 1
        }
        let writer = try FleetNode(server)
        // The writer's own connections (its reader's, and its pool's after a first write).
        try writer.store.set(Profile(value: "first"), forKey: "first")
        let baseline = try connectedClients()
        for index in 0..<20 {
            let directory = TemporaryDirectory()
            var tier: RedisTier? = try RedisTier(
                host: "127.0.0.1", port: server.port, keyPrefix: "test:", commandTimeout: .milliseconds(500))
            var configuration = ModelStore.Configuration()
            configuration.directory = directory.url
            configuration.sharedTier = tier
            let store = try ModelStore(name: "users", policy: .never, configuration: configuration)
            try writer.store.set(Profile(value: "\(index)"), forKey: "k\(index)")
            #expect(try store.object(Profile.self, forKey: "k\(index)")?.value == "\(index)")
            try store.set(Profile(value: "back"), forKey: "b\(index)")
            try store.close()
            if shutDown { tier?.shutdown() }
            tier = nil
            configuration.sharedTier = nil
        }
        let settled = try timeUntil(within: .seconds(10)) { try connectedClients() <= baseline }
        let after = try connectedClients()
        #expect(settled != nil, "\(after) connections, \(baseline) before")
    }

    /// Another client appends an entry numbered far ahead of the counter, and nothing follows it.
    /// A node cannot know what it missed (one clear), and the counter then seems to have gone
    /// back (one new epoch); it must not start again from that entry's number, or it finds the
    /// counter "back" at every check and wipes the fleet's records every 500 ms.
    @Test func anEntryNumberedAheadOfTheCounterReplacesTheEpochOnceNotOnEveryCheck() throws {
        let server = try RedisServer()
        let a = try FleetNode(server)
        let b = try FleetNode(server)
        try a.store.set(Profile(value: "v"), forKey: "k")
        #expect(try b.holdsLocally("k"))
        let keys = a.tier.keys
        try server.appendInvalidation(to: keys, sequence: "1000000", payload: InvalidationMessage.encode(.tag("none")))
        var epochs = Set<[UInt8]>()
        let clock = ContinuousClock()
        let start = clock.now
        while clock.now - start < .seconds(2) {
            if let epoch = try server.command([Array("GET".utf8), keys.epoch]).bytes { epochs.insert(epoch) }
            usleep(10_000)
        }
        // The one before, and at most one new one.
        #expect(epochs.count <= 2, "\(epochs.count) epochs in 2 s")
        // And the fleet works on.
        #expect(try a.writeReaches(b, key: "k", value: "after"))
    }

    /// A tier shut down while its stores stay open no longer follows the stream: those stores
    /// must not take records from Redis any more (nothing would drop them when overwritten),
    /// and their writes must still reach the other nodes.
    @Test func aShutDownTierTakesNothingFromRedisButStillPublishes() throws {
        let server = try RedisServer()
        let a = try FleetNode(server)
        let b = try FleetNode(server)
        b.tier.shutdown()
        try a.store.set(Profile(value: "v1"), forKey: "k")
        _ = try b.value("k")
        try a.store.set(Profile(value: "v2"), forKey: "k")
        #expect(try timeUntil { try b.value("k") != "v1" } != nil)
        try b.store.set(Profile(value: "from b"), forKey: "b")
        #expect(try timeUntil { try a.value("b") == "from b" } != nil)
    }

    /// Another client's value under a key's fetch lock (garbage without a lifetime, a hash, or a
    /// string with a lifetime far beyond any lock's): it can never expire, so a read-through
    /// that waited for it would wait its whole lock lifetime (5 s) on every miss of the key.
    @Test(arguments: ["garbage", "hash", "year"]) func aForeignValueUnderAFetchLockDoesNotHoldFetchesBack(value: String) async throws {
        let server = try RedisServer()
        let b = try FleetNode(server)
        let lock = b.tier.keys.lock(database: "users", key: SharedTierKey(collection: nil, key: "cold"))
        switch value {
        case "garbage": try server.command([Array("SET".utf8), lock, Array("junk".utf8)])
        case "hash": try server.command([Array("HSET".utf8), lock, Array("f".utf8), Array("v".utf8)])
        default: try server.command([Array("SET".utf8), lock, Array("junk".utf8), Array("PX".utf8), Array("31536000000".utf8)])
        }
        let clock = ContinuousClock()
        let start = clock.now
        let fetched = try await b.store.object(Profile.self, forKey: "cold") { Profile(value: "fetched") }
        let took = clock.now - start
        #expect(fetched.value == "fetched")
        #expect(took < .seconds(1), "the read-through waited \(took) for a lock that is not one")
    }

    /// Redis keeps a record past its own deadline (another client removed its `PX`, or made it an
    /// hour): once the deadline passes, no node serves it, nor stores it locally.
    @Test func noNodeServesARecordPastItsOwnDeadlineWhateverRedisSays() throws {
        let server = try RedisServer()
        let a = try FleetNode(server)
        let b = try FleetNode(server)
        try a.store.set(Profile(value: "v"), forKey: "persisted", expiresAfter: 0.5)
        try a.store.set(Profile(value: "v"), forKey: "longer", expiresAfter: 0.5)
        try server.command([Array("PERSIST".utf8), recordKey(a, "persisted")])
        try server.command([Array("PEXPIRE".utf8), recordKey(a, "longer"), Array("3600000".utf8)])
        #expect(try timeUntil { try a.value("persisted") == nil && a.value("longer") == nil } != nil)
        for key in ["persisted", "longer"] {
            #expect(try server.command([Array("EXISTS".utf8), recordKey(a, key)]) == .integer(1))
            #expect(try b.value(key) == nil)
            #expect(try b.store.entry(Profile.self, forKey: key) == nil)
            #expect(try b.store.snapshot().object(Profile.self, forKey: key) == nil)
        }
    }

    /// Another client deletes a database's generation key after a bulk removal raised it. A node
    /// that reads the generation afresh must not take the missing key for generation 0, under
    /// which records from before the removal may still sit in Redis (without a lifetime of their
    /// own, nothing removed them).
    @Test func aDeletedGenerationKeyCanBringBackRecordsFromBeforeABulkRemoval() throws {
        let server = try RedisServer()
        let a = try FleetNode(server)
        let b = try FleetNode(server)
        // Only b has it: a's removal by prefix cannot name it, only raise the generation.
        try b.store.set(Profile(value: "p"), forKey: "p:1")
        try a.store.removeObjects(withPrefix: "p:")
        #expect(try timeUntil { try b.value("p:1") == nil } != nil)
        try server.command([Array("DEL".utf8), a.tier.keys.generation(database: "users")])
        let c = try FleetNode(server)
        #expect(try c.value("p:1") == nil)
        // And the fleet works on, b and c on the same generation.
        #expect(try b.writeReaches(c, key: "p:2", value: "again"))
    }

    /// Redis goes back to an older snapshot while every node's reader lagged behind the writes
    /// after it (here: `XREAD` refused by an ACL, while publications go on). No reader read
    /// past the snapshot's counter, so only the writer's own publications tell it went back.
    @Test func aRestoreWhileEveryReaderLaggedIsStillNoticedByTheWriter() throws {
        let server = try RedisServer(persistent: true)
        let (a, b) = try Self.twoNodesAfterASnapshot(server)
        try server.command(["ACL", "SETUSER", "default", "-xread"])
        // The readers' blocked XREADs return (within 500 ms); the next ones are refused.
        #expect(
            try timeUntil {
                let info = try server.command(["INFO", "clients"]).text ?? ""
                return info.contains("blocked_clients:0")
            } != nil)
        try a.store.set(Profile(value: "v2"), forKey: "k")
        try a.store.removeObject(forKey: "removed")
        // A restart from the snapshot (ACLs are not in it: the readers read again).
        server.kill()
        try server.start()
        #expect(
            try timeUntil(within: .seconds(10)) {
                try [a, b].allSatisfy { try $0.value("k") != "v1" && $0.value("removed") == nil }
            } != nil)
    }

    /// Redis goes back to a snapshot taken before its epoch was last replaced (here another
    /// client replaced it; a flush or a node's answer to a lost counter does too). The snapshot
    /// brings its older epoch back, and with it records the fleet overwrote since: a node that
    /// followed that epoch before must take its return for a rollback (a new epoch), not for one
    /// more epoch change (a clear, after which it reads the old records again).
    @Test func aSnapshotFromBeforeTheEpochWasReplacedBringsNothingBack() throws {
        let server = try RedisServer(persistent: true)
        let (a, b) = try Self.twoNodesAfterASnapshot(server)
        let epochKey = a.tier.keys.epoch
        try server.command([Array("SET".utf8), epochKey, Array("another".utf8)])
        // Both readers follow the new epoch (each clears: nothing of theirs is under it yet).
        #expect(timeUntil { [a, b].allSatisfy { $0.tier.reader.followsEpoch(Array("another".utf8)) } } != nil)
        try a.store.set(Profile(value: "v2"), forKey: "k")
        try a.store.removeObject(forKey: "removed")
        #expect(try timeUntil { try b.value("k") == "v2" && b.value("removed") == nil } != nil)
        server.kill()
        try server.start()
        // Every value either node reads from now on, while the readers notice and afterwards.
        var staleReads = 0
        let clock = ContinuousClock()
        let start = clock.now
        while clock.now - start < .seconds(2) {
            for node in [a, b] where try node.value("k") == "v1" || node.value("removed") != nil { staleReads += 1 }
            usleep(1_000)
        }
        #expect(staleReads == 0)
        #expect(try server.command([Array("GET".utf8), epochKey]).text != "another")
    }
}
