import CoreMetrics
import Logging
import Foundation
import ModelStore
import Tracing

/// One database's link to a ``RedisTier`` in this process.
final class RedisAttachment: SharedTierAttachment, Sendable {
    let tier: RedisTier
    let database: SharedTierDatabase
    /// The epoch and the database's generation as last read (or raised by this process's bulk
    /// removal), with the head of its record keys; nil: not known yet, read from Redis at the
    /// next use.
    private let knownGeneration = Guarded<KnownGeneration?>(nil)

    /// A generation and what the database's record keys start with in it
    /// (``RedisKeys/recordHead(database:generation:)``): built once per generation, so a Redis
    /// read takes both under one lock and writes only its key's tail.
    private struct KnownGeneration {
        let generation: RedisGeneration
        let head: [UInt8]
    }
    /// How many times the generation was forgotten: a generation read from Redis before a
    /// forget is not kept after it (it may predate the bulk removal that made the forget).
    private let forgets = Guarded<UInt64>(0)
    /// Set when the database closes in this process: its queued publications still go out, as
    /// removals (its records can no longer be read). Dropping them would leave the other nodes
    /// with the values this process overwrote while Redis was unreachable.
    private let detached = Guarded(false)

    var isDetached: Bool { detached.withLock { $0 } }

    /// Set when this process deletes the database (a removal of the whole database, published
    /// before it closes): nothing it owed before is published after that.
    private let deleted = Guarded(false)

    var isDeleted: Bool { deleted.withLock { $0 } }

    /// Who published an entry, as the stream says it: the node and this attachment's serial.
    let origin: String

    /// The database's tag removal clocks, as this node knows them (TagClocks.swift).
    let tagClocks: TagClocks

    /// The fetch locks this process holds for the database (RedisAttachment+FetchLock.swift).
    let fetchLocks = HeldFetchLocks()

    init(tier: RedisTier, database: SharedTierDatabase) {
        self.tier = tier
        self.database = database
        origin = "\(tier.node)#\(tier.registry.nextSerial())"
        tagClocks = TagClocks(lifetime: tier.tombstoneLifetime)
    }

    private var name: String { database.name }

    /// The epoch and generation record keys carry, read from Redis when not known (the script
    /// creates a missing epoch and repairs a damaged one, and a damaged generation: see
    /// ``RedisScripts/readGeneration``); nil if Redis cannot say.
    func generation() -> RedisGeneration? {
        generationAndHead()?.generation
    }

    /// ``generation()`` with the head of the database's record keys in it.
    func generationAndHead() -> (generation: RedisGeneration, head: [UInt8])? {
        if let known = knownGeneration.withLock({ $0 }) { return (known.generation, known.head) }
        let forgotten = forgets.withLock { $0 }
        let keys = tier.keys
        let arguments: [[UInt8]] = [
            Array("EVAL".utf8), Array(RedisScripts.readGeneration.utf8), Array("4".utf8), keys.epoch,
            keys.generation(database: name), keys.sequence, keys.stream, Array(UUID().uuidString.utf8),
            Array(String(tier.streamLength).utf8), Array(name.utf8), InvalidationMessage.generationReset, Array(origin.utf8),
        ]
        let result = tier.pool.run { connection in try connection.command(arguments) }
        guard case .success(.array(let parts)) = result, parts.count == 2, let epoch = parts[0].bytes, !epoch.isEmpty,
            let number = parts[1].integer
        else {
            if case .success(let reply) = result {
                tier.metrics.errors.increment()
                tier.logger.warning("Could not read a database's generation", metadata: ["reply": "\(reply)"])
            }
            return nil
        }
        let read = RedisGeneration(epoch: epoch, number: number)
        let fresh = KnownGeneration(generation: read, head: tier.keys.recordHead(database: name, generation: read))
        let answer = forgets.withLock { count in
            knownGeneration.withLock { known in
                // A higher one noted meanwhile (this process's bulk removal) wins.
                if let current = known, current.generation.epoch == read.epoch, current.generation.number > read.number {
                    return current
                }
                // Forgotten while it was read (a bulk removal's entry came in): used for this
                // call, which began before that removal, but read again by the next.
                guard count == forgotten else { return fresh }
                known = fresh
                return fresh
            }
        }
        return (answer.generation, answer.head)
    }

    /// Takes the generation this process's bulk removal raised, in the epoch it knows.
    func noteGeneration(_ number: Int64) {
        knownGeneration.withLock { known in
            guard let current = known, number > current.generation.number else { return }
            let raised = RedisGeneration(epoch: current.generation.epoch, number: number)
            known = KnownGeneration(generation: raised, head: tier.keys.recordHead(database: name, generation: raised))
        }
    }

    /// Forgets the epoch and generation (Redis's data changed under it, or a bulk removal raised
    /// the generation): the next use reads them from Redis.
    func forgetGeneration() {
        forgets.withLock { count in
            count += 1
            knownGeneration.withLock { $0 = nil }
        }
    }

    func recordKey(_ key: SharedTierKey, generation: RedisGeneration) -> [UInt8] {
        RedisKeys.record(head: recordKeyHead(generation), key: key)
    }

    /// What the database's record keys start with in `generation` (``RedisKeys/recordHead(database:generation:)``):
    /// the known generation's, kept with it; built for another (an older one a publication was
    /// read in).
    func recordKeyHead(_ generation: RedisGeneration) -> [UInt8] {
        if let known = knownGeneration.withLock({ $0 }), known.generation == generation { return known.head }
        return tier.keys.recordHead(database: name, generation: generation)
    }

    // MARK: - SharedTierAttachment

    func record(for key: SharedTierKey) -> SharedTierRecord? {
        guard case .record(let record) = lookup(key) else { return nil }
        return record
    }

    func lookup(_ key: SharedTierKey) -> SharedTierAnswer {
        // No span to build (and no clock to read for it) while no tracer is bootstrapped.
        guard tier.tracing.isTracing else { return counted(fetch(key)) }
        return withSpan("ModelStoreRedis.get", ofKind: .client) { span in
            span.attributes["db.system"] = "redis"
            span.attributes["modelstore.database"] = name
            let answer = counted(fetch(key))
            if case .record = answer { span.attributes["modelstore.shared_tier.hit"] = true }
            return answer
        }
    }

    /// Counts `answer` as a hit or a miss.
    private func counted(_ answer: SharedTierAnswer) -> SharedTierAnswer {
        if case .record = answer { tier.metrics.hits.increment() } else { tier.metrics.misses.increment() }
        return answer
    }

    /// One round trip: the value under the key's record key and its remaining lifetime.
    private func fetch(_ key: SharedTierKey) -> SharedTierAnswer {
        // No record before the invalidation reader follows the stream (it starts at its end).
        guard tier.reader.awaitFollowing(limit: tier.endpoint.commandTimeout), let head = generationAndHead()?.head,
            loadTagClocks()
        else {
            return .unavailable
        }
        let result = tier.pool.run { connection in
            try connection.getWithLifetime(keyCount: head.count + RedisKeys.recordTailCount(key)) { writer in
                writer.write(head)
                RedisKeys.writeRecordTail(key, to: &writer)
            }
        }
        guard case .success(let replies) = result else { return .unavailable }
        switch replies.value {
        case .string(let bytes) where !bytes.isEmpty:
            if let time = Tombstone.time(of: bytes) { return .removed(SharedTierVersion(time: time)) }
            if let removed = tagRemovalAnswer(for: bytes) { return removed }
            let remaining: Duration?
            switch replies.lifetime {
            case let milliseconds? where milliseconds > 0: remaining = .milliseconds(milliseconds)
            case -1: remaining = nil
            // Expired (or removed) between the two commands.
            default: return .absent
            }
            return .record(SharedTierRecord(bytes: bytes, remainingLifetime: remaining))
        case .null:
            return .absent
        default:
            // Of another Redis type (WRONGTYPE), or empty: not a record of ours.
            discard(key)
            return .absent
        }
    }

    func discard(_ key: SharedTierKey) {
        tier.metrics.invalidValues.increment()
        guard let generation = generation() else { return }
        let redisKey = recordKey(key, generation: generation)
        _ = tier.pool.run { connection in
            try connection.command([Array("EVAL".utf8), Array(RedisScripts.discard.utf8), Array("1".utf8), redisKey])
        }
        tier.logger.warning(
            "A value in Redis was not a valid record for its key; removed it",
            metadata: ["database": "\(name)", "collection": "\(key.collection ?? "")", "key": "\(key.key)"])
    }

    func publish(_ invalidation: SharedTierInvalidation) {
        if invalidation == .database { deleted.withLock { $0 = true } }
        tier.publisher.publish(invalidation, for: self)
    }

    func detach() {
        // What the queued publications owe is read now, while the database can still be read.
        tier.publisher.capture(for: self)
        detached.withLock { $0 = true }
        tier.registry.remove(self)
    }
}
