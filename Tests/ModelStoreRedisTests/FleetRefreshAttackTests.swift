import Foundation
import ModelStore
import ModelStoreTestSupport
import Testing
@testable import ModelStoreRedis

/// Attacks on the background refresh (SharedTierDatabase+Refresh.swift): what a node that held
/// many keys does when another node overwrites them all, on a slow link to Redis.
@Suite(.serialized, .enabled(if: RedisServer.isInstalled, "needs redis-server (scripts/install-dependencies)"))
struct FleetRefreshAttackTests {
    /// Finding: every invalidation that dropped keys started a refresh of its own on the tier's
    /// threads (up to 64 at once), each asking Redis through the node's pool of 4 connections.
    /// A writer overwriting many keys the node held, one publication each, made the refreshes
    /// take every connection: on a link 20 ms away, the node's own reads of keys it did not hold
    /// waited for a connection past the command timeout and failed ("every connection to Redis
    /// is busy"), reading nil for a key Redis held.
    ///
    /// Guarantee: b (behind a proxy adding 20 ms each way) holds 400 keys; a overwrites each of
    /// them; while b refreshes, b's reads of a key it never held all answer its value.
    @Test func refreshesOfManyOverwrittenKeysLeaveTheNodesReadsAConnection() throws {
        let server = try RedisServer()
        let proxy = try FaultProxy(server)
        let a = try FleetNode(server)
        let b = try FleetNode(port: proxy.port)
        let keys = (0..<400).map { "k\($0)" }
        for key in keys { try a.store.set(Profile(value: "v1"), forKey: key) }
        // Keys b never held, one per read (a read stores what it read: the next is local).
        let fresh = (0..<300).map { "fresh\($0)" }
        for key in fresh { try a.store.set(Profile(value: key), forKey: key) }
        #expect(timeUntil { b.caughtUp() } != nil, "b's reader never caught up")
        for key in keys { _ = try b.value(key) }
        let held = try timeUntil(within: .seconds(10)) {
            try keys.allSatisfy { try b.store.snapshot().object(Profile.self, forKey: $0) != nil }
        }
        #expect(held != nil, "b never held every key")
        try proxy.delay(milliseconds: 20)
        for key in keys { try a.store.set(Profile(value: "v2"), forKey: key) }
        // b's reader takes the entries in over the slow link; b's reads meanwhile.
        var failed: [String] = []
        let clock = ContinuousClock()
        let start = clock.now
        var reads = 0
        while clock.now - start < .seconds(4), reads < fresh.count {
            let key = fresh[reads]
            reads += 1
            do {
                let value = try b.value(key)
                if value != key { failed.append("\(key): read \(shown(value))") }
            } catch {
                failed.append("\(key): threw \(error)")
            }
            usleep(10_000)
        }
        #expect(failed.isEmpty, "\(failed.count) of b's reads of a key Redis held failed while b refreshed: \(failed.prefix(3))")
        try proxy.delay(milliseconds: 0)
        let refreshed = try timeUntil(within: .seconds(20)) {
            try keys.allSatisfy { try b.store.snapshot().object(Profile.self, forKey: $0)?.value != "v1" }
        }
        #expect(refreshed != nil, "b still held some v1 20 s after a overwrote every key")
    }
}
