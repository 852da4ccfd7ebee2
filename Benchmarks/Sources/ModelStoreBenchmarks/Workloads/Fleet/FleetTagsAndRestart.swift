import Foundation
import ModelStore
import ModelStoreRedis
import Synchronization

/// Removing a tag that covers 1 % of 100,000 records in Redis on node A, then node B (holding
/// none of them locally) reads every record: how many of the untagged ones it still finds in
/// Redis (target: at least 99 %), and that it finds none of the tagged ones.
func fleetTagRemoval(directory: String, port: Int, count: Int = 100_000) throws -> [String] {
    let prefix = "bench-tags:"
    let corpus = ProfileCorpus(count: count)
    let tierA = try RedisTier(host: "127.0.0.1", port: port, keyPrefix: prefix)
    let tierB = try RedisTier(host: "127.0.0.1", port: port, keyPrefix: prefix)
    defer {
        tierA.shutdown()
        tierB.shutdown()
    }
    let a = try fleetStore("tags", directory + "/tags-a", tier: tierA)
    let b = try fleetStore("tags", directory + "/tags-b", tier: tierB)
    defer {
        try? a.close()
        try? b.close()
    }
    try writeInBatches(a, corpus: corpus, count: count) { $0 % 100 == 0 ? ["group:1"] : [] }
    let removed = try a.removeObjects(taggedWith: "group:1")
    let (untagged, tagged) = try onThread { () throws -> (Int, Int) in
        var untagged = 0
        var tagged = 0
        for number in 0..<count where try b.object(Profile.self, forKey: ProfileCorpus.key(number)) != nil {
            if number % 100 == 0 { tagged += 1 } else { untagged += 1 }
        }
        return (untagged, tagged)
    }
    let others = count - count / 100
    return [
        "### Tag removal: what another node still finds in Redis (\(count) records, 1 % tagged)",
        "",
        "Node A wrote every record through the tier, then removed the tag (\(removed) records);",
        "node B, which holds none locally, then read every record.",
        "",
        "| Untagged records node B found in Redis | Tagged records node B found |",
        "|---:|---:|",
        String(format: "| %d of %d (%.1f %%) | %d |", untagged, others, Double(untagged) * 100 / Double(others), tagged),
        "",
        "Target: at least 99 % of the untagged, none of the tagged.",
    ]
}

/// Three nodes hold the same 100,000 records (A wrote them through the tier, B and C read them
/// all from Redis); Redis is restarted empty; with no write meanwhile, 100,000 read-throughs
/// spread over the nodes (record i on node i mod 3): how many go upstream, in the call or in
/// the background (target: none; every record is held by some node, here by all).
func fleetRestart(directory: String, redis: BenchmarkRedis, count: Int = 100_000) async throws -> [String] {
    let prefix = "bench-restart:"
    let corpus = ProfileCorpus(count: count)
    var tiers: [RedisTier] = []
    var nodes: [ModelStore] = []
    for name in ["a", "b", "c"] {
        let tier = try RedisTier(host: "127.0.0.1", port: redis.port, keyPrefix: prefix)
        tiers.append(tier)
        nodes.append(try fleetStore("restart", directory + "/restart-" + name, tier: tier))
    }
    defer {
        for node in nodes { try? node.close() }
        for tier in tiers { tier.shutdown() }
    }
    try writeInBatches(nodes[0], corpus: corpus, count: count)
    let held = try onThread { () throws -> Int in
        var held = 0
        for node in nodes[1...] {
            for number in 0..<count where try node.object(Profile.self, forKey: ProfileCorpus.key(number)) != nil { held += 1 }
        }
        return held
    }
    guard held == 2 * count else { throw BenchmarkFailure("B and C read \(held) of \(2 * count) records from Redis") }
    // A's outbox settles 2 s after Redis applied its writes; past that, a restart has nothing to republish.
    try await Task.sleep(for: .seconds(3))
    try redis.restart()
    // Long enough for every node's reader to reconnect and see the new epoch (backoff from 50 ms).
    try await Task.sleep(for: .seconds(3))
    let fetches = FetchCount()
    let stores = nodes
    let clock = ContinuousClock()
    let start = clock.now
    try await withThrowingTaskGroup(of: Void.self) { group in
        for (index, node) in stores.enumerated() {
            group.addTask {
                for number in stride(from: index, to: count, by: 3) {
                    _ = try await node.object(Profile.self, forKey: ProfileCorpus.key(number)) {
                        fetches.value.add(1, ordering: .relaxed)
                        return corpus.profile(number)
                    }
                }
            }
        }
        try await group.waitForAll()
    }
    let elapsed = clock.now - start
    // Background refreshes (a refresh-ahead of a record Redis knew nothing of) land meanwhile.
    try await Task.sleep(for: .seconds(2))
    return [
        "### Redis restarted empty under three nodes that hold the records",
        "",
        "\(count) records on each of 3 nodes (written through the tier on A, read from Redis on B and C);",
        "Redis killed and started again empty; no writes; then \(count) read-throughs, record i on node i mod 3.",
        "",
        "| Upstream fetches (in the call or in the background) | Read-throughs per second (3 nodes) |",
        "|---:|---:|",
        String(format: "| %d | %.0f |", fetches.value.load(ordering: .relaxed), Double(count) / seconds(elapsed)),
        "",
        "Target: 0 (every record is held by some node, and none was written during the outage).",
    ]
}

func seconds(_ duration: Duration) -> Double {
    let (seconds, attoseconds) = duration.components
    return Double(seconds) + Double(attoseconds) / 1e18
}
