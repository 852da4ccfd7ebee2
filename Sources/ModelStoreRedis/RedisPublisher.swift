import CoreMetrics
import Dispatch
import Foundation
import Logging
import ModelStore
import Tracing

/// Publishes local writes to Redis, in order, on one serial queue: what the database's durable
/// outbox owes for each key *when published* (the record stored now, or the removal's version),
/// through a fenced script that replaces only older versions, then one stream entry naming what
/// it set, with versions. Writers that arrive while a publication is in flight are grouped
/// into the next.
///
/// A writer waits for its publication (at most twice the command timeout) unless Redis is known
/// to be unreachable; a publication that fails is kept and retried with backoff, so once Redis is
/// back every other process still hears of it (for a database with more than
/// ``pendingLimit`` keys waiting, as one removal of the whole database). The outbox keeps it
/// across a kill: a process publishes what it owes when it attaches again. An outbox entry goes
/// once Redis kept what it published for ``settleDelay`` (``OutboxSettler``), so a Redis that
/// loses its data before (restarted empty, flushed) is sent it again (``republishOutboxes()``).
final class RedisPublisher: Sendable {
    private let pool: RedisPool
    /// The pool's: what the log says of Redis being lost and back.
    var health: RedisHealth { pool.health }
    private let keys: RedisKeys
    private let streamLength: [UInt8]
    private let registry: AttachedDatabases
    private let metrics: RedisTierMetrics
    private let logger: Logger
    private let waitLimit: Duration
    private let published: PublishedSequence
    private let queue = DispatchQueue(label: "ModelStoreRedis.publisher")
    private let condition = NSCondition()
    private let state = Guarded(State())
    /// Lets outbox entries go once Redis kept what they published.
    private let settler: OutboxSettler

    /// Keys of one database waiting beyond which they become one whole-database removal.
    static let pendingLimit = 50_000
    /// Keys per script call.
    static let chunkSize = 256

    /// How long Redis must keep what an outbox entry published before the entry goes: longer than
    /// the other nodes take to read the stream's entry, so a loss of Redis's data before they did
    /// is repaired.
    static let settleDelay: Duration = .seconds(2)

    private struct Pending {
        var bulk: [SharedTierInvalidation] = []
        var keys: [SharedTierKey] = []
        var keySet: Set<SharedTierKey> = []
        /// What the keys owed when their database closed (it cannot be read any more).
        var captured: [SharedTierKey: SharedTierPublication] = [:]
        /// Whether the tag clocks this node holds are restored in Redis first (Redis lost its data).
        var restoresTagClocks = false
    }

    private struct State {
        var pending: [ObjectIdentifier: (attachment: RedisAttachment, work: Pending)] = [:]
        var enqueued: UInt64 = 0
        var attempted: UInt64 = 0
        var draining = false
        var failing = false
        var failures = 0
    }

    /// How long a removal's tombstone stays in Redis.
    private let tombstoneLifetime: Duration

    init(
        pool: RedisPool, keys: RedisKeys, streamLength: Int, registry: AttachedDatabases,
        metrics: RedisTierMetrics, logger: Logger, waitLimit: Duration, published: PublishedSequence,
        tombstoneLifetime: Duration
    ) {
        self.tombstoneLifetime = tombstoneLifetime
        self.published = published
        self.pool = pool
        self.keys = keys
        self.streamLength = Array(String(streamLength).utf8)
        self.registry = registry
        self.metrics = metrics
        self.logger = logger
        self.waitLimit = waitLimit
        settler = OutboxSettler(pool: pool, keys: keys, queue: queue, delay: Self.settleDelay)
    }

    /// The writer's span: from queueing its invalidation to its publication (or to giving up
    /// waiting), in the writer's trace.
    static let writerSpan = "ModelStoreRedis.publish"
    /// One script call of the serial queue's; it may carry several writers' work, so it starts
    /// a trace of its own.
    static let roundTripSpan = "ModelStoreRedis.publish.batch"

    /// Queues `invalidation` of `attachment`'s database and waits for its publication, unless
    /// publications are failing (then it is kept for the retry and the writer goes on at once).
    func publish(_ invalidation: SharedTierInvalidation, for attachment: RedisAttachment) {
        withSpan(Self.writerSpan, ofKind: .client) { span in
            span.attributes["db.system"] = "redis"
            span.attributes["modelstore.database"] = attachment.database.name
            enqueueAndWait(invalidation, for: attachment)
        }
    }

    /// Queues `invalidation` without waiting (what an attaching database's outbox owes).
    func enqueue(_ invalidation: SharedTierInvalidation, for attachment: RedisAttachment) {
        _ = enqueueReturningTicket(invalidation, for: attachment)
    }

    /// Queues again everything every attached database's outbox still owes, settled entries
    /// included until ``settleDelay`` passed: Redis lost what it held (restarted empty, flushed).
    func republishOutboxes() {
        for attachment in registry.all {
            // Before the outbox: no record a tag removal covered may be taken in again.
            let start = state.withLock { state -> Bool in
                var entry = state.pending[ObjectIdentifier(attachment)] ?? (attachment, Pending())
                entry.work.restoresTagClocks = true
                state.pending[ObjectIdentifier(attachment)] = entry
                let start = !state.draining
                state.draining = true
                return start
            }
            if start { queue.async { self.drain() } }
            enqueueOutbox(of: attachment)
        }
    }

    /// Queues, without waiting, everything `attachment`'s database's outbox owes (at attach:
    /// what a killed process left unpublished).
    func enqueueOutbox(of attachment: RedisAttachment) {
        for removal in attachment.database.pendingBulkRemovals() { enqueue(removal, for: attachment) }
        let keys = attachment.database.pendingKeys()
        if !keys.isEmpty { enqueue(.keys(keys), for: attachment) }
    }

    /// Reads, while `attachment`'s database can still be read (it is closing), everything its
    /// outbox owes (queued, in flight or not yet queued), for publication after it closed.
    func capture(for attachment: RedisAttachment) {
        guard !attachment.isDeleted else { return }
        let database = attachment.database
        var captured: [SharedTierKey: SharedTierPublication] = [:]
        for key in database.pendingKeys() { captured[key] = database.pendingPublication(for: key) }
        let removals = database.pendingBulkRemovals()
        guard !captured.isEmpty || !removals.isEmpty else { return }
        let start = state.withLock { state -> Bool in
            var entry = state.pending[ObjectIdentifier(attachment)] ?? (attachment, Pending())
            for removal in removals { Self.add(removal, to: &entry.work) }
            Self.add(.keys(Array(captured.keys)), to: &entry.work)
            entry.work.captured.merge(captured) { _, new in new }
            state.pending[ObjectIdentifier(attachment)] = entry
            let start = !state.draining
            state.draining = true
            return start
        }
        if start { queue.async { self.drain() } }
    }

    private func enqueueReturningTicket(
        _ invalidation: SharedTierInvalidation, for attachment: RedisAttachment
    ) -> (ticket: UInt64, failing: Bool) {
        // This node's own reads honour a tag removal from now on, even while Redis is unreachable
        // and the publication waits (its own stream entries are skipped).
        if case .tag(let tag, let version?) = invalidation { attachment.tagClocks.note(tag, version: version.time) }
        let (ticket, failing, start) = state.withLock { state -> (UInt64, Bool, Bool) in
            var entry = state.pending[ObjectIdentifier(attachment)] ?? (attachment, Pending())
            Self.add(invalidation, to: &entry.work)
            state.pending[ObjectIdentifier(attachment)] = entry
            state.enqueued += 1
            let start = !state.draining
            state.draining = true
            return (state.enqueued, state.failing, start)
        }
        if start { queue.async { self.drain() } }
        return (ticket, failing)
    }

    private func enqueueAndWait(_ invalidation: SharedTierInvalidation, for attachment: RedisAttachment) {
        let (ticket, failing) = enqueueReturningTicket(invalidation, for: attachment)
        guard !failing else { return }
        let deadline = Date().addingTimeInterval(TimeBounds.seconds(waitLimit))
        condition.lock()
        defer { condition.unlock() }
        while state.withLock({ $0.attempted < ticket }) {
            if !condition.wait(until: deadline) { return }
        }
    }

    private static func add(_ invalidation: SharedTierInvalidation, to work: inout Pending) {
        switch invalidation {
        case .keys(let keys):
            for key in keys where work.keySet.insert(key).inserted { work.keys.append(key) }
            if work.keys.count > pendingLimit {
                work.keys.removeAll()
                work.keySet.removeAll()
                work.bulk.append(.database)
            }
        case .versioned(let changes):
            add(.keys(changes.map(\.key)), to: &work)
        case .database:
            work.bulk = [.database]
            work.keys.removeAll()
            work.keySet.removeAll()
        default:
            work.bulk.append(invalidation)
        }
    }

    /// Publishes everything queued, round after round, on the serial queue.
    private func drain() {
        while true {
            let (batch, ticket) = state.withLock { state -> ([(RedisAttachment, Pending)], UInt64) in
                let batch = state.pending.values.map { ($0.attachment, $0.work) }
                state.pending.removeAll()
                if batch.isEmpty { state.draining = false }
                return (batch, state.enqueued)
            }
            guard !batch.isEmpty else { return }
            var failed: [(RedisAttachment, Pending)] = []
            for (attachment, work) in batch {
                if let rest = publish(work, of: attachment) { failed.append((attachment, rest)) }
            }
            let backoff = state.withLock { state -> Duration? in
                state.attempted = max(state.attempted, ticket)
                guard !failed.isEmpty else {
                    state.failing = false
                    state.failures = 0
                    return nil
                }
                // Put back in front of what arrived meanwhile (a later write of a key is published
                // by reading it again anyway).
                for (attachment, work) in failed {
                    var merged = work
                    if let newer = state.pending[ObjectIdentifier(attachment)]?.work {
                        for invalidation in newer.bulk { Self.add(invalidation, to: &merged) }
                        Self.add(.keys(newer.keys), to: &merged)
                        merged.captured.merge(newer.captured) { _, new in new }
                        merged.restoresTagClocks = merged.restoresTagClocks || newer.restoresTagClocks
                    }
                    state.pending[ObjectIdentifier(attachment)] = (attachment, merged)
                }
                state.failing = true
                state.failures += 1
                state.draining = false
                return RedisPool.backoff(afterFailures: state.failures, limit: RedisPool.longestBackgroundBackoff)
            }
            condition.lock()
            condition.broadcast()
            condition.unlock()
            if let backoff {
                queue.asyncAfter(deadline: .now() + .nanoseconds(Int(nanoseconds(backoff)))) { [self] in retry() }
                return
            }
        }
    }

    /// Tries again what failed, now: the backoff passed, or Redis is known to be back (the
    /// invalidation reader reconnected). The pool's callers' backoff ends too, so the retry tries
    /// to connect; if it fails, the pool's backoff starts again.
    func retry() {
        let start = state.withLock { state -> Bool in
            guard state.failing, !state.draining, !state.pending.isEmpty else { return false }
            state.draining = true
            return true
        }
        guard start else { return }
        pool.endBackoff()
        queue.async { self.drain() }
    }

    /// Another connection reached Redis again (the invalidation reader's): the pool's callers stop
    /// backing off, and what failed is published now.
    func redisIsReachable() {
        pool.endBackoff()
        retry()
    }

    /// Publishes one database's queued work; returns what is left when Redis failed.
    private func publish(_ work: Pending, of attachment: RedisAttachment) -> Pending? {
        let name = Array(attachment.database.name.utf8)
        let node = Array(attachment.origin.utf8)
        if work.restoresTagClocks, !attachment.isDeleted, !attachment.restoreTagClocks() { return work }
        for (index, invalidation) in work.bulk.enumerated() {
            guard publish(bulk: invalidation, of: attachment, name: name, node: node) else {
                return remainder(work, fromBulk: index)
            }
        }
        var start = 0
        while start < work.keys.count {
            let chunk = Array(work.keys[start..<min(start + Self.chunkSize, work.keys.count)])
            guard publish(keys: chunk, of: attachment, name: name, node: node, captured: work.captured) else {
                var rest = Pending()
                Self.add(.keys(Array(work.keys[start...])), to: &rest)
                rest.captured = work.captured
                return rest
            }
            start += chunk.count
        }
        return nil
    }

    private func remainder(_ work: Pending, fromBulk index: Int) -> Pending {
        var rest = Pending()
        for invalidation in work.bulk[index...] { Self.add(invalidation, to: &rest) }
        Self.add(.keys(work.keys), to: &rest)
        rest.captured = work.captured
        return rest
    }

    /// Raises the database's generation for a bulk removal and announces it, in one script;
    /// false if Redis failed (kept for the retry). Reads the epoch again once if Redis's changed.
    private func publish(bulk invalidation: SharedTierInvalidation, of attachment: RedisAttachment, name: [UInt8], node: [UInt8]) -> Bool {
        if case .tag(let tag, let version) = invalidation {
            return publish(tagRemoval: tag, version: version, as: invalidation, of: attachment, name: name, node: node)
        }
        for _ in 0..<2 {
            guard let known = attachment.generation() else { return false }
            let generationKey = keys.generation(database: attachment.database.name)
            let payload = InvalidationMessage.encode(invalidation)
            let result = withSpan(Self.roundTripSpan, ofKind: .client) { _ in
                pool.run { [keys, streamLength] connection in
                    try connection.command(
                        [Array("EVAL".utf8), Array(RedisScripts.publishBulk.utf8), Array("4".utf8), keys.epoch, keys.sequence,
                         keys.stream, generationKey, known.epoch, streamLength, node, name, payload])
                }
            }
            switch result {
            case .success(.array(let parts)) where parts.count == 2:
                guard let generation = parts[0].integer, let sequence = parts[1].integer else { return false }
                published.note(sequence, epoch: known.epoch)
                attachment.noteGeneration(generation)
                metrics.invalidationsSent.increment()
                settle(bulk: invalidation, of: attachment, epoch: known.epoch, sequence: sequence)
                return true
            case .success(let reply) where reply.bytes == Array("epoch".utf8):
                attachment.forgetGeneration()
            default:
                return false
            }
        }
        return false
    }

    /// Raises the tag's removal clock in Redis and announces the removal, in one script; no
    /// record key changes (TagClocks.swift). A removal without a version (an outbox entry of a
    /// release before them) takes the time now: later than every record it could have named.
    /// False if Redis failed (kept for the retry). Reads the epoch again once if Redis's changed.
    private func publish(
        tagRemoval tag: String, version: SharedTierVersion?, as invalidation: SharedTierInvalidation,
        of attachment: RedisAttachment, name: [UInt8], node: [UInt8]
    ) -> Bool {
        let version = version ?? SharedTierVersion(time: Date().timeIntervalSinceReferenceDate)
        attachment.tagClocks.note(tag, version: version.time)
        let database = attachment.database.name
        let payload = InvalidationMessage.encode(.tag(tag, version: version))
        for _ in 0..<2 {
            guard let known = attachment.generation() else { return false }
            let command: [[UInt8]] = [
                Array("EVAL".utf8), Array(RedisScripts.publishTagRemoval.utf8), Array("5".utf8), keys.epoch, keys.sequence,
                keys.stream, keys.tagClocks(database: database), keys.tagFloors(database: database), known.epoch,
                streamLength, node, name, payload, Array(tag.utf8), Array(Self.decimal(version.time).utf8),
                Array(Self.decimal(attachment.tagClocks.lifetime).utf8),
            ]
            let result = withSpan(Self.roundTripSpan, ofKind: .client) { _ in
                pool.run { connection in try connection.command(command) }
            }
            switch result {
            case .success(let reply) where reply.bytes == Array("epoch".utf8):
                attachment.forgetGeneration()
            case .success(let reply):
                guard let sequence = reply.integer else {
                    metrics.errors.increment()
                    logger.warning("Redis refused a tag removal", metadata: ["reply": "\(reply)"])
                    return false
                }
                published.note(sequence, epoch: known.epoch)
                metrics.invalidationsSent.increment()
                settle(bulk: invalidation, of: attachment, epoch: known.epoch, sequence: sequence)
                return true
            default:
                return false
            }
        }
        return false
    }

    /// Lets the outbox entry of a bulk removal go once Redis applied it. A tag removal's goes
    /// once Redis kept it for ``settleDelay``, as a key's: a Redis that loses its data before the other nodes read
    /// the entry is sent it again, which its version makes harmless (its clock only rises, and a
    /// node removes only the records it covers). A removal by prefix (or of the database) goes at
    /// once: sending it again would raise the generation again, making every record in Redis
    /// unreachable once more, and remove newer records with the prefix on every node.
    private func settle(
        bulk invalidation: SharedTierInvalidation, of attachment: RedisAttachment, epoch: [UInt8], sequence: Int64
    ) {
        let database = attachment.database
        guard case .tag(_, _?) = invalidation, !attachment.isDetached else {
            database.didPublish(bulk: invalidation)
            return
        }
        settler.settle(epoch: epoch, sequence: sequence) { database.didPublish(bulk: invalidation) }
    }

    /// Stores what the outbox owes for each key in Redis (its record, or a tombstone) where Redis
    /// holds an older version, and announces the keys it set, in one script. A key Redis holds a
    /// newer version of (or another record of the same version: Redis decides) loses its local
    /// record. Reads the epoch again once if Redis's changed; false if Redis failed.
    private func publish(
        keys chunk: [SharedTierKey], of attachment: RedisAttachment, name: [UInt8], node: [UInt8],
        captured: [SharedTierKey: SharedTierPublication]
    ) -> Bool {
        // What each key owes, read now (a later write of a key is published by reading it again).
        // The database was deleted (and its removal published): what it owed is moot.
        guard !attachment.isDeleted else { return true }
        // Read before the records: a lock noted now was taken before the write whose record is
        // read below, so that record (or a newer one) is what its holder stored.
        let locks = attachment.fetchLocks.held(among: chunk)
        var owed: [(key: SharedTierKey, publication: SharedTierPublication)] = []
        var nothingOwed: [(key: SharedTierKey, version: SharedTierVersion?)] = []
        let detached = attachment.isDetached
        for key in chunk {
            if let publication = detached ? captured[key] : attachment.database.pendingPublication(for: key) {
                owed.append((key, publication))
            } else if !detached {
                nothingOwed.append((key, nil))
            }
        }
        attachment.database.didPublish(nothingOwed)
        guard !owed.isEmpty else { return true }
        for _ in 0..<2 {
            guard let generation = attachment.generation() else { return false }
            switch run(owed, generation: generation, of: attachment, name: name, node: node, releasing: locks) {
            case .published: return true
            case .failed: return false
            case .epochChanged: attachment.forgetGeneration()
            }
        }
        return false
    }

    private enum Outcome {
        case published, failed, epochChanged
    }

    /// One fenced script call for `owed` under `generation`.
    private func run(
        _ owed: [(key: SharedTierKey, publication: SharedTierPublication)], generation: RedisGeneration,
        of attachment: RedisAttachment, name: [UInt8], node: [UInt8], releasing locks: [SharedTierKey: String]
    ) -> Outcome {
        let database = attachment.database.name
        // The fetch locks this process holds for the keys published: given up in the same script,
        // after the records (see RedisScripts.publishKeys), so their holders' unlocks cost nothing.
        let released = locks.isEmpty ? [] : owed.compactMap { entry in locks[entry.key].map { (entry.key, $0) } }
        var arguments: [[UInt8]] = [
            Array("EVAL".utf8), Array(RedisScripts.publishKeys.utf8), Array(String(owed.count + 5 + released.count).utf8),
            keys.epoch, keys.sequence, keys.stream, keys.tagClocks(database: database), keys.tagFloors(database: database),
        ]
        var values: [[UInt8]] = []
        values.reserveCapacity(owed.count * 5)
        for (key, publication) in owed {
            arguments.append(attachment.recordKey(key, generation: generation))
            let version: SharedTierVersion
            switch publication {
            case .set(let record, let recordVersion):
                version = recordVersion
                values.append(record.bytes)
                let milliseconds = record.remainingLifetime.map { max(1, nanoseconds($0) / 1_000_000) } ?? 0
                values.append(Array(String(milliseconds).utf8))
            case .removed(let removal):
                version = removal
                values.append(Tombstone.value(removal))
                values.append(Array(String(max(1, nanoseconds(tombstoneLifetime) / 1_000_000)).utf8))
            }
            values.append(Array(Self.decimal(version.time).utf8))
            values.append(InvalidationMessage.versionedPart(SharedTierChange(key: key, version: version)))
            // The script refuses a record that a tag removal covers (TagClocks.swift).
            if case .set(let record, _) = publication {
                values.append(RedisAttachment.encodedTags(record.tags))
            } else {
                values.append([])
            }
        }
        for (key, _) in released { arguments.append(keys.lock(database: database, key: key)) }
        arguments += [
            generation.epoch, streamLength, node, name, InvalidationMessage.versionedKind,
            Array(String(max(1, nanoseconds(tombstoneLifetime) / 1_000_000)).utf8),
        ]
        arguments += values
        for (_, token) in released { arguments.append(Array(token.utf8)) }
        let command = arguments
        let result = withSpan(Self.roundTripSpan, ofKind: .client) { span in
            span.attributes["modelstore.keys"] = owed.count
            return pool.run { connection in try connection.command(command) }
        }
        guard case .success(let reply) = result, !reply.isError else {
            if case .success(let reply) = result {
                metrics.errors.increment()
                logger.warning("Redis refused a publication", metadata: ["reply": "\(reply)"])
            }
            return .failed
        }
        if reply.bytes == Array("epoch".utf8) { return .epochChanged }
        guard case .array(let parts) = reply, parts.count == 2, case .array(let results) = parts[1],
            results.count == owed.count
        else {
            metrics.errors.increment()
            logger.warning("A publication's reply ModelStoreRedis cannot read", metadata: ["reply": "\(reply)"])
            return .failed
        }
        let sequence = parts[0].integer ?? 0
        if sequence > 0 { published.note(sequence, epoch: generation.epoch) }
        for (key, token) in released { attachment.fetchLocks.release(key, token: token) }
        var settled: [(key: SharedTierKey, version: SharedTierVersion?)] = []
        var lost: [SharedTierChange] = []
        for ((key, publication), result) in zip(owed, results) {
            let version: SharedTierVersion
            switch publication {
            case .set(_, let recordVersion): version = recordVersion
            case .removed(let removal): version = removal
            }
            settled.append((key, version))
            // Fenced: Redis holds a newer version, or another record of this one (a tie, which
            // Redis decided): the local record goes unless it is newer than that (a later write).
            if let text = result.text, text != "0", let newer = Double(text) {
                lost.append(SharedTierChange(key: key, version: SharedTierVersion(time: newer == version.time ? newer.nextUp : newer)))
            }
        }
        if !lost.isEmpty, !attachment.isDetached { attachment.database.apply(.versioned(lost)) }
        metrics.writes.increment(by: Int64(owed.count))
        metrics.invalidationsSent.increment()
        if !attachment.isDetached {
            let database = attachment.database
            let settled = settled
            settler.settle(epoch: generation.epoch, sequence: sequence) { database.didPublish(settled) }
        }
        return .published
    }

    /// `value` in decimal, exactly (Lua's `tonumber` reads it back to the same Float64).
    static func decimal(_ value: Double) -> String {
        "\(value)"
    }
}
