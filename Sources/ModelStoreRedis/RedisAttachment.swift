import CoreMetrics
import Logging
import Foundation
import ModelStore
import Tracing

/// One database's link to a ``RedisTier`` in this process.
final class RedisAttachment: SharedTierAttachment, Sendable {
    let tier: RedisTier
    let database: SharedTierDatabase
    /// The database's generation as last read or announced; nil: not known yet.
    private let knownGeneration = Guarded<Int64?>(nil)
    /// Set when the database closes in this process: its queued publications are dropped, since
    /// its records can no longer be read (publishing "none" would remove them from the fleet).
    private let detached = Guarded(false)

    var isDetached: Bool { detached.withLock { $0 } }

    init(tier: RedisTier, database: SharedTierDatabase) {
        self.tier = tier
        self.database = database
    }

    private var name: String { database.name }

    /// The generation record keys carry, read from Redis when not known; nil if Redis cannot say.
    func generation() -> Int64? {
        if let known = knownGeneration.withLock({ $0 }) { return known }
        let key = tier.keys.generation(database: name)
        guard case .success(let reply) = tier.pool.run({ connection in try connection.command([Array("GET".utf8), key]) })
        else { return nil }
        let generation: Int64
        switch reply {
        case .null: generation = 0
        default:
            guard let value = reply.integer else { return nil }
            generation = value
        }
        return knownGeneration.withLock { known in
            // A newer one announced meanwhile wins.
            let current = max(known ?? generation, generation)
            known = current
            return current
        }
    }

    /// Takes a generation announced in the stream (or returned by this process's bulk removal).
    func noteGeneration(_ generation: Int64) {
        knownGeneration.withLock { $0 = max($0 ?? generation, generation) }
    }

    /// Forgets the generation (Redis restarted empty: it starts again from nothing).
    func forgetGeneration() {
        knownGeneration.withLock { $0 = nil }
    }

    func recordKey(_ key: SharedTierKey, generation: Int64) -> [UInt8] {
        tier.keys.record(database: name, generation: generation, key: key)
    }

    // MARK: - SharedTierAttachment

    func record(for key: SharedTierKey) -> SharedTierRecord? {
        withSpan("ModelStoreRedis.get", ofKind: .client) { span in
            span.attributes["db.system"] = "redis"
            span.attributes["modelstore.database"] = name
            guard let generation = generation() else {
                tier.metrics.misses.increment()
                return nil
            }
            let redisKey = recordKey(key, generation: generation)
            let result = tier.pool.run { connection in
                try connection.pipeline([[Array("GET".utf8), redisKey], [Array("PTTL".utf8), redisKey]])
            }
            guard case .success(let replies) = result, replies.count == 2 else {
                tier.metrics.misses.increment()
                return nil
            }
            switch replies[0] {
            case .string(let bytes) where !bytes.isEmpty:
                let remaining: Duration?
                switch replies[1].integer {
                case let milliseconds? where milliseconds > 0: remaining = .milliseconds(milliseconds)
                case -1: remaining = nil
                default:
                    // Expired (or removed) between the two commands.
                    tier.metrics.misses.increment()
                    return nil
                }
                tier.metrics.hits.increment()
                span.attributes["modelstore.shared_tier.hit"] = true
                return SharedTierRecord(bytes: bytes, remainingLifetime: remaining)
            case .null:
                tier.metrics.misses.increment()
                return nil
            default:
                // Of another Redis type (WRONGTYPE), or empty: not a record of ours.
                tier.metrics.misses.increment()
                discard(key)
                return nil
            }
        }
    }

    func discard(_ key: SharedTierKey) {
        tier.metrics.invalidValues.increment()
        guard let generation = generation() else { return }
        let redisKey = recordKey(key, generation: generation)
        _ = tier.pool.run { connection in try connection.command([Array("DEL".utf8), redisKey]) }
        tier.logger.warning(
            "A value in Redis was not a valid record for its key; removed it",
            metadata: ["database": "\(name)", "collection": "\(key.collection ?? "")", "key": "\(key.key)"])
    }

    func publish(_ invalidation: SharedTierInvalidation) {
        tier.publisher.publish(invalidation, for: self)
    }

    func lockFetch(of key: SharedTierKey, for lifetime: Duration) -> SharedTierFetchLock {
        let token = UUID().uuidString
        let lockKey = tier.keys.lock(database: name, key: key)
        let milliseconds = max(1, nanoseconds(min(lifetime, tier.fetchLockLifetime)) / 1_000_000)
        let result = withSpan("ModelStoreRedis.lock", ofKind: .client) { span in
            span.attributes["modelstore.database"] = name
            return tier.pool.run { connection in
                try connection.command(
                    [Array("SET".utf8), lockKey, Array(token.utf8), Array("NX".utf8), Array("PX".utf8),
                     Array(String(milliseconds).utf8)])
            }
        }
        switch result {
        case .success(.status): return .acquired(key, token: token)
        case .success(.null):
            tier.metrics.lockWaits.increment()
            return .heldElsewhere
        default: return .unavailable
        }
    }

    func unlockFetch(_ lock: SharedTierFetchLock) {
        guard case .acquired(let key, let token) = lock else { return }
        let lockKey = tier.keys.lock(database: name, key: key)
        _ = tier.pool.run { connection in
            try connection.command(
                [Array("EVAL".utf8), Array(RedisScripts.unlock.utf8), Array("1".utf8), lockKey, Array(token.utf8)])
        }
    }

    func detach() {
        detached.withLock { $0 = true }
        tier.registry.remove(self)
    }
}
