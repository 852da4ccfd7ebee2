import Foundation
import ModelStore
import ModelStoreTestSupport
import Testing
@testable import ModelStoreRedis

/// A node that held a key another node wrote takes the new record from Redis in the background
/// (SharedTierDatabase+Refresh.swift), so its next read is local; keys it never held are not
/// asked for, and a removal leaves nothing behind.
@Suite(.serialized, .enabled(if: RedisServer.isInstalled, "needs redis-server (scripts/install-dependencies)"))
struct FleetRefreshTests {
    /// b holds k=v1; a writes v2: b's own LevelDB (a snapshot reads the local store only) holds
    /// v2 within 5 s, though nothing on b read k.
    @Test func aNodeThatHeldAnOverwrittenKeyTakesTheNewRecordInTheBackground() throws {
        let server = try RedisServer()
        let (a, b) = try FleetNode.pair(aPort: server.port, bPort: server.port)
        try a.store.set(Profile(value: "v2"), forKey: "k")
        var local: String?
        let landed = try timeUntil {
            local = try b.store.snapshot().object(Profile.self, forKey: "k")?.value
            return local == "v2"
        }
        #expect(landed != nil, "5 s after a wrote v2, b's own LevelDB holds k=\(shown(local))")
        #expect(try b.value("k") == "v2")
    }

    /// a writes j twice; b never read j: once b's reader has read both entries, b's LevelDB holds
    /// no j (the tier is not asked for keys a node never held).
    @Test func aKeyTheNodeNeverHeldIsNotTakenIn() throws {
        let server = try RedisServer()
        let a = try FleetNode(server)
        let b = try FleetNode(server)
        try a.store.set(Profile(value: "v1"), forKey: "j")
        try a.store.set(Profile(value: "v2"), forKey: "j")
        #expect(timeUntil { b.caughtUp() } != nil, "b's reader never caught up")
        // Time for a refresh that should not happen to land (it would within a few ms).
        let taken = try violations(during: .milliseconds(300)) {
            try b.store.snapshot().object(Profile.self, forKey: "j").map { "b holds j=\($0.value)" }
        }
        #expect(taken.isEmpty, "\(taken.first ?? "")")
    }

    /// b holds k; a removes it: b's LevelDB holds no k (the refresh finds the removal's
    /// tombstone and stores nothing), and b reads nil.
    @Test func aRemovalLeavesNothingBehind() throws {
        let server = try RedisServer()
        let (a, b) = try FleetNode.pair(aPort: server.port, bPort: server.port)
        try a.store.removeObject(forKey: "k")
        let dropped = try timeUntil { try b.store.snapshot().object(Profile.self, forKey: "k") == nil }
        #expect(dropped != nil, "b's LevelDB still holds k 5 s after a removed it")
        let backAgain = try violations(during: .milliseconds(300)) {
            try b.store.snapshot().object(Profile.self, forKey: "k").map { "b holds k=\($0.value) again" }
        }
        #expect(backAgain.isEmpty, "\(backAgain.first ?? "")")
        #expect(try b.value("k") == nil)
    }
}
