import Foundation
import ModelStore
import ModelStoreTestSupport
import Testing
@testable import ModelStoreRedis

/// Attacks on the outbox's settling (OutboxSettler.swift): under steady writes, across an
/// outage, the outbox lets its entries go once Redis kept them, and stays bounded.
@Suite(.serialized, .enabled(if: RedisServer.isInstalled, "needs redis-server (scripts/install-dependencies)"))
struct FleetSettlerAttackTests {
    /// The outbox of `node`'s database: the keys it still owes Redis.
    private static func owed(_ node: FleetNode) -> Int {
        node.tier.registry.attachments(named: "users").first?.database.pendingKeys().count ?? -1
    }

    /// Writes a new key on `node` every 5 ms for `duration`; returns the keys written, and the
    /// most the outbox owed at any second past the first 3.
    private static func writeSteadily(_ node: FleetNode, for duration: Duration, from first: Int = 0) throws -> (written: Int, most: Int) {
        let clock = ContinuousClock()
        let start = clock.now
        var index = first
        var most = 0
        var lastSample = start
        while clock.now - start < duration {
            try node.store.set(Profile(value: "v"), forKey: "w\(index)")
            index += 1
            if clock.now - start > .seconds(3), clock.now - lastSample > .seconds(1) {
                most = max(most, owed(node))
                lastSample = clock.now
            }
            usleep(5_000)
        }
        return (index - first, most)
    }

    /// Guarantee: a writes a new key every 5 ms for 7 s; past the first 3 s the outbox never owes
    /// more than the writes of the last 3 s or so (entries settle 2 s after Redis kept them), and
    /// 5 s after the last write it owes nothing.
    @Test func steadyWritesLetTheOutboxGo() throws {
        let server = try RedisServer()
        let a = try FleetNode(server)
        let (written, most) = try Self.writeSteadily(a, for: .seconds(7))
        // At most one write per 5 ms: 3.5 s of writes is 700.
        #expect(most <= 700, "the outbox owed \(most) keys of \(written) written")
        var left = -1
        let drained = timeUntil(within: .seconds(5)) {
            left = Self.owed(a)
            return left == 0
        }
        #expect(drained != nil, "5 s after the last write the outbox still owes \(left) keys")
    }

    /// Guarantee: a writes steadily while Redis is killed for 1.5 s and started again empty; 6 s
    /// after the last write the outbox owes nothing, and Redis has no more than the two nodes'
    /// connections (a pool of 4 and a reader each, and this test's own).
    @Test func anOutageUnderSteadyWritesLeavesNothingOwedAndNoConnectionsPiledUp() throws {
        let server = try RedisServer()
        let a = try FleetNode(server)
        let b = try FleetNode(server)
        _ = try b.value("w0")
        var (written, _) = try Self.writeSteadily(a, for: .seconds(1))
        server.kill()
        let clock = ContinuousClock()
        let outage = clock.now
        var failed = 0
        while clock.now - outage < .milliseconds(1_500) {
            do { try a.store.set(Profile(value: "v"), forKey: "w\(written)") } catch { failed += 1 }
            written += 1
            usleep(5_000)
        }
        try server.start()
        written += try Self.writeSteadily(a, for: .seconds(2), from: written).written
        var left = -1
        let drained = timeUntil(within: .seconds(6)) {
            left = Self.owed(a)
            return left == 0
        }
        #expect(drained != nil, "6 s after the last write the outbox still owes \(left) of \(written) keys")
        let clients = try server.command(["INFO", "clients"]).text ?? ""
        let connected = clients.split(whereSeparator: \.isNewline).first { $0.hasPrefix("connected_clients:") }
            .flatMap { Int($0.dropFirst("connected_clients:".count)) } ?? -1
        #expect((1...12).contains(connected), "Redis has \(connected) clients after the outage")
        let received = { () throws -> Int in
            let stats = try server.command(["INFO", "stats"]).text ?? ""
            return stats.split(whereSeparator: \.isNewline).first { $0.hasPrefix("total_connections_received:") }
                .flatMap { Int($0.dropFirst("total_connections_received:".count)) } ?? -1
        }
        let before = try received()
        _ = violations(during: .seconds(1)) { nil }
        let after = try received()
        // This test's own INFO calls may connect; the nodes none.
        #expect(after - before <= 3, "\(after - before) connections opened in a quiet second")
    }
}
