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

    /// Guarantee: a overwrites and removes 16 keys 3,000 times while b reads them (so holds them
    /// and refreshes them); once b's reader caught up, b's own LevelDB holds, for each key,
    /// a's last value or nothing: no refresh left an older record or brought a removed key back.
    /// With `flush`, Redis is flushed halfway (FLUSHALL): what a's outbox sends again brings
    /// b's refreshes back to a's last values all the same.
    @Test(arguments: [false, true]) func racingOverwritesAndRemovalsLeaveNoOlderRecordBehind(flush: Bool) throws {
        let server = try RedisServer()
        let a = try FleetNode(server)
        let b = try FleetNode(server)
        let keys = (0..<16).map { "r\($0)" }
        var last: [String: String?] = [:]
        let reader = BackgroundReads(b, keys)
        var random = SystemRandomNumberGenerator()
        for index in 0..<3_000 {
            if flush, index == 1_500 { try server.command(["FLUSHALL"]) }
            let key = keys.randomElement(using: &random)!
            if Int.random(in: 0..<4, using: &random) == 0 {
                try a.store.removeObject(forKey: key)
                last[key] = .some(nil)
            } else {
                try a.store.set(Profile(value: "v\(index)"), forKey: key)
                last[key] = .some("v\(index)")
            }
        }
        reader.stop()
        #expect(timeUntil { b.caughtUp() } != nil, "b's reader never caught up")
        if flush {
            // a's outbox sends again what Redis lost, settling 2 s after Redis kept it.
            let owed = timeUntil(within: .seconds(10)) {
                a.tier.registry.attachments(named: "users").first?.database.pendingKeys().isEmpty == true
            }
            #expect(owed != nil, "a's outbox still owes keys 10 s after the flush")
            #expect(timeUntil { b.caughtUp() } != nil, "b's reader never caught up")
        }
        // Time for refreshes and fills under way to land.
        let wrong = try violations(during: .milliseconds(500)) {
            for key in keys {
                let local = try b.store.snapshot().object(Profile.self, forKey: key)?.value
                if let local, local != last[key] ?? nil { return "b holds \(key)=\(local), a's last is \(shown(last[key] ?? nil))" }
            }
            return nil
        }
        #expect(wrong.isEmpty, "\(wrong.count) checks: \(wrong.first ?? "")")
        for key in keys { #expect(try b.value(key) == last[key] ?? nil, "b reads \(key)") }
    }
}

extension FleetRefreshAttackTests {
    /// Guarantee: b holds 300 keys; a overwrites them all and b's store is closed and its tier
    /// shut down at once, refreshes under way or queued: nothing crashes, and b's directory
    /// opens again with a new tier and reads a's values.
    @Test func closingWhileRefreshingIsHarmless() throws {
        let server = try RedisServer()
        let a = try FleetNode(server)
        let directory = TemporaryDirectory()
        let keys = (0..<300).map { "c\($0)" }
        for key in keys { try a.store.set(Profile(value: "v1"), forKey: key) }
        do {
            let b = try FleetNode(port: server.port, directory: directory)
            #expect(timeUntil { b.caughtUp() } != nil, "b's reader never caught up")
            for key in keys { _ = try b.value(key) }
            for key in keys { try a.store.set(Profile(value: "v2"), forKey: key) }
            // Some of the entries read, their refreshes queued.
            _ = timeUntil(within: .milliseconds(200)) { b.tier.reader.lastSequence > 300 + 150 }
            try b.store.close()
            b.tier.shutdown()
        }
        // Time for anything queued on the closed store to run into it.
        _ = violations(during: .milliseconds(300)) { nil }
        let again = try FleetNode(port: server.port, directory: directory)
        for key in keys.prefix(20) { #expect(try again.value(key) == "v2") }
    }
}

/// A thread of b's reading the keys in a loop until stopped.
private final class BackgroundReads: @unchecked Sendable {
    private let stopped = NSCondition()
    private var isStopped = false
    private var done = false

    init(_ node: FleetNode, _ keys: [String]) {
        Thread.detachNewThread { [self] in
            while !stopped.withLock({ isStopped }) {
                for key in keys { _ = try? node.value(key) }
            }
            stopped.withLock {
                done = true
                stopped.broadcast()
            }
        }
    }

    func stop() {
        stopped.withLock {
            isStopped = true
            while !done { stopped.wait() }
        }
    }
}
