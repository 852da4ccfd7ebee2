import Foundation
import ModelStore
import ModelStoreTestSupport
import Testing
@testable import ModelStoreRedis

/// A model for the shared tier's tests.
struct Profile: Codable, Sendable, Equatable {
    var value: String
}

/// One node of a fleet inside the test process: its own directory (so its own local tiers),
/// its own RedisTier (so its own node name), over one shared `redis-server`.
final class FleetNode: @unchecked Sendable {
    /// The node's own directory (a restarted node is given the one it had).
    let directory: TemporaryDirectory
    let tier: RedisTier
    let store: ModelStore

    convenience init(
        _ server: RedisServer, name: String = "users", prefix: String = "test:", objectCacheLimit: Int = 0,
        configure: (inout ModelStore.Configuration) -> Void = { _ in }
    ) throws {
        try self.init(port: server.port, name: name, prefix: prefix, objectCacheLimit: objectCacheLimit, configure: configure)
    }

    /// A node whose tier connects to `port` on loopback: a server's, or a `FaultProxy`'s in front
    /// of one (whose faults then hit this node alone).
    init(
        port: Int, commandTimeout: Duration = .milliseconds(500), name: String = "users", prefix: String = "test:",
        objectCacheLimit: Int = 0, tombstoneLifetime: Duration = .seconds(600), directory: TemporaryDirectory? = nil,
        configure: (inout ModelStore.Configuration) -> Void = { _ in }
    ) throws {
        self.directory = directory ?? TemporaryDirectory()
        tier = try RedisTier(
            host: "127.0.0.1", port: port, keyPrefix: prefix, commandTimeout: commandTimeout, tombstoneLifetime: tombstoneLifetime)
        var configuration = ModelStore.Configuration()
        configure(&configuration)
        configuration.directory = self.directory.url
        configuration.sharedTier = tier
        configuration.objectCacheLimit = objectCacheLimit
        store = try ModelStore(name: name, policy: .never, configuration: configuration)
    }

    deinit {
        try? store.close()
        tier.shutdown()
    }

    func value(_ key: String) throws -> String? {
        try store.object(Profile.self, forKey: key)?.value
    }

    /// Reads `key` (through the tier) until the node's own LevelDB holds it (a snapshot reads
    /// the local store only): a read skips storing what Redis gave it when an invalidation
    /// arrived meanwhile, such as the stream entry of the very write that put the record there.
    func holdsLocally(_ key: String) throws -> Bool {
        try timeUntil {
            // The entry of the write that put it in Redis would drop the copy if applied after.
            guard caughtUp() else { return false }
            _ = try value(key)
            return try store.snapshot().object(Profile.self, forKey: key) != nil
        } != nil
    }

    /// Whether a write of `value` under `key` on this node is read on `other` within the
    /// bounded wait, writing again on each poll: that the fleet works on after an attack, once
    /// whatever the attack left has been noticed.
    func writeReaches(_ other: FleetNode, key: String, value: String) throws -> Bool {
        try timeUntil {
            try store.set(Profile(value: value), forKey: key)
            return try other.value(key) == value
        } != nil
    }
}

extension FleetNode {
    /// Whether this node's invalidation reader has read every entry the stream's counter has numbered.
    func caughtUp() -> Bool {
        let sequence = tier.keys.sequence
        guard case .success(let reply) = tier.pool.run({ try $0.command([Array("GET".utf8), sequence]) }) else { return false }
        return tier.reader.lastSequence >= (reply.integer ?? 0)
    }
}

/// Polls `condition` every millisecond for at most `limit`; returns how long it took to hold,
/// or nil if it never did.
func timeUntil(within limit: Duration = .seconds(5), _ condition: () throws -> Bool) rethrows -> Duration? {
    let clock = ContinuousClock()
    let start = clock.now
    while clock.now - start < limit {
        if try condition() { return clock.now - start }
        usleep(1_000)
    }
    return nil
}

/// The Redis key of `key` in database `database`, with the epoch and generation `node` uses.
func recordKey(_ node: FleetNode, database: String = "users", collection: String? = nil, _ key: String) -> [UInt8] {
    let generation = node.tier.registry.attachments(named: database).first?.generation() ?? RedisGeneration(epoch: [], number: 0)
    return node.tier.keys.record(database: database, generation: generation, key: SharedTierKey(collection: collection, key: key))
}

extension FleetNode {
    /// Two nodes, a and b, whose tiers connect to `aPort` and `bPort` (a server's, or a proxy's in
    /// front of it), once a wrote `key` = `value` and b holds it in its own LevelDB: the start of
    /// every finding about what reaches a node that held a key.
    static func pair(
        aPort: Int, bPort: Int, commandTimeout: Duration = .milliseconds(500), holding key: String = "k", value: String = "v1"
    ) throws -> (a: FleetNode, b: FleetNode) {
        let a = try FleetNode(port: aPort, commandTimeout: commandTimeout)
        let b = try FleetNode(port: bPort, commandTimeout: commandTimeout)
        try a.store.set(Profile(value: value), forKey: key)
        #expect(try b.holdsLocally(key), "b never held \(key)=\(value)")
        return (a, b)
    }
}
