import CoreMetrics
import Foundation
import ModelStore
import Tracing

// MARK: - The fetch lock
//
// Concurrent read-through misses for one key on several nodes cause one upstream fetch: the node
// that takes the key's lock fetches, the others wait for the record to land (RunningAFleet.md).
// Each step is one round trip: taking the lock also looks for the record (a lock may be free
// because its holder just stored the record and let go), and the holder's publication of what it
// stored also gives the lock up, so its unlock afterwards has nothing left to do.

extension RedisAttachment {
    func lockFetch(of key: SharedTierKey, for lifetime: Duration) -> SharedTierFetchLock {
        let token = UUID().uuidString
        let lockKey = tier.keys.lock(database: database.name, key: key)
        let arguments = lockArguments(token: token, lifetime: lifetime)
        let result = traced("ModelStoreRedis.lock") {
            tier.pool.run { connection in
                try connection.command(
                    [Array("EVAL".utf8), Array(RedisScripts.lock.utf8), Array("1".utf8), lockKey] + arguments)
            }
        }
        return lockAnswer(result, key: key, token: token)
    }

    func lockFetchUnlessStored(of key: SharedTierKey, for lifetime: Duration) -> SharedTierFetchLock {
        // What a read needs before it may find a record (RedisAttachment.lookup): without it,
        // no record can count as landed, so the lock alone is what is asked.
        guard tier.reader.awaitFollowing(limit: tier.endpoint.commandTimeout), let generation = generation(),
            loadTagClocks()
        else {
            return lockFetch(of: key, for: lifetime)
        }
        let token = UUID().uuidString
        let lockKey = tier.keys.lock(database: database.name, key: key)
        let recordKey = recordKey(key, generation: generation)
        let arguments = lockArguments(token: token, lifetime: lifetime)
        let result = traced("ModelStoreRedis.lock") {
            tier.pool.run { connection in
                try connection.command(
                    [Array("EVAL".utf8), Array(RedisScripts.lockUnlessStored.utf8), Array("2".utf8), lockKey, recordKey]
                        + arguments)
            }
        }
        guard case .success(.string(let bytes)) = result else {
            tier.metrics.misses.increment()
            return lockAnswer(result, key: key, token: token)
        }
        // A record that a tag removal covers is no record (a read takes it as removed): the
        // script took no lock, so it is taken now (rare: the removal's entry is on its way).
        guard tagRemovalAnswer(for: bytes) == nil else { return lockFetch(of: key, for: lifetime) }
        tier.metrics.hits.increment()
        return .stored
    }

    func unlockFetch(_ lock: SharedTierFetchLock) {
        guard case .acquired(let key, let token) = lock else { return }
        // The publication of what the holder stored gave the lock up already (the usual case).
        guard fetchLocks.release(key, token: token) else { return }
        let lockKey = tier.keys.lock(database: database.name, key: key)
        _ = tier.pool.run { connection in
            try connection.command(
                [Array("EVAL".utf8), Array(RedisScripts.unlock.utf8), Array("1".utf8), lockKey, Array(token.utf8)])
        }
    }

    func needsUnlock(_ lock: SharedTierFetchLock) -> Bool {
        guard case .acquired(let key, let token) = lock else { return false }
        return fetchLocks.isHeld(key, token: token)
    }

    /// ARGV of ``RedisScripts/lock``: the token, the lifetime (at most the tier's longest) and
    /// the longest, in milliseconds.
    private func lockArguments(token: String, lifetime: Duration) -> [[UInt8]] {
        let milliseconds = max(1, nanoseconds(min(lifetime, tier.fetchLockLifetime)) / 1_000_000)
        let longest = max(1, nanoseconds(tier.fetchLockLifetime) / 1_000_000)
        return [Array(token.utf8), Array(String(milliseconds).utf8), Array(String(longest).utf8)]
    }

    /// What the lock script's reply means; an acquired lock is noted as held.
    private func lockAnswer(
        _ result: Result<RedisReply, RedisFailure>, key: SharedTierKey, token: String
    ) -> SharedTierFetchLock {
        switch result {
        case .success(.status):
            fetchLocks.hold(key, token: token)
            return .acquired(key, token: token)
        case .success(.null):
            tier.metrics.lockWaits.increment()
            return .heldElsewhere
        default:
            return .unavailable
        }
    }

    /// `body` in a client span named `name` when a tracer is bootstrapped (no span, and no
    /// clock read for it, otherwise).
    private func traced<Value>(_ name: String, _ body: () -> Value) -> Value {
        guard tier.tracing.isTracing else { return body() }
        return withSpan(name, ofKind: .client) { span in
            span.attributes["modelstore.database"] = database.name
            return body()
        }
    }
}

/// The fetch locks one attachment holds, by key, with their tokens: the publication of a key
/// whose lock this process holds gives the lock up in its own script (``RedisScripts/publishKeys``),
/// so the holder's unlock needs no round trip of its own.
final class HeldFetchLocks: Sendable {
    private let tokens = Guarded<[SharedTierKey: String]>([:])

    /// Notes a lock just taken.
    func hold(_ key: SharedTierKey, token: String) {
        tokens.withLock { $0[key] = token }
    }

    /// The locks held for `keys`, by key: a publication of them gives these up.
    func held(among keys: some Sequence<SharedTierKey>) -> [SharedTierKey: String] {
        tokens.withLock { tokens in
            guard !tokens.isEmpty else { return [:] }
            var held: [SharedTierKey: String] = [:]
            for key in keys { if let token = tokens[key] { held[key] = token } }
            return held
        }
    }

    /// Whether this process's note of the lock is still there (no publication gave it up).
    func isHeld(_ key: SharedTierKey, token: String) -> Bool {
        tokens.withLock { $0[key] == token }
    }

    /// Forgets a lock; true if it was still held by this process's note (so Redis may still
    /// hold it: unlock there), false if a publication gave it up already.
    @discardableResult
    func release(_ key: SharedTierKey, token: String) -> Bool {
        tokens.withLock { tokens in
            guard tokens[key] == token else { return false }
            tokens[key] = nil
            return true
        }
    }
}
