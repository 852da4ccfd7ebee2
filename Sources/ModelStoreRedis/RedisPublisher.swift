import CoreMetrics
import Dispatch
import Foundation
import Logging
import ModelStore
import Tracing

/// Publishes local writes to Redis, in order, on one serial queue: the records as they are
/// stored locally *when published* (so whatever order concurrent writers reach Redis in, the
/// last publication of a key carries its latest local state), then one stream entry naming
/// what changed. Writers that arrive while a publication is in flight are grouped into the next.
///
/// A writer waits for its publication (at most twice the command timeout) unless Redis is known
/// to be unreachable; a publication that fails is kept and retried with backoff, so once Redis is
/// back every other process still hears of it (for a database with more than
/// ``pendingLimit`` keys waiting, as one removal of the whole database).
final class RedisPublisher: Sendable {
    private let pool: RedisPool
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

    /// Keys of one database waiting beyond which they become one whole-database removal.
    static let pendingLimit = 50_000
    /// Keys per script call.
    static let chunkSize = 256

    private struct Pending {
        var bulk: [SharedTierInvalidation] = []
        var keys: [SharedTierKey] = []
        var keySet: Set<SharedTierKey> = []
    }

    private struct State {
        var pending: [ObjectIdentifier: (attachment: RedisAttachment, work: Pending)] = [:]
        var enqueued: UInt64 = 0
        var attempted: UInt64 = 0
        var draining = false
        var failing = false
        var failures = 0
    }

    init(
        pool: RedisPool, keys: RedisKeys, streamLength: Int, registry: AttachedDatabases,
        metrics: RedisTierMetrics, logger: Logger, waitLimit: Duration, published: PublishedSequence
    ) {
        self.published = published
        self.pool = pool
        self.keys = keys
        self.streamLength = Array(String(streamLength).utf8)
        self.registry = registry
        self.metrics = metrics
        self.logger = logger
        self.waitLimit = waitLimit
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

    private func enqueueAndWait(_ invalidation: SharedTierInvalidation, for attachment: RedisAttachment) {
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
            let retry = state.withLock { state -> Duration? in
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
                    }
                    state.pending[ObjectIdentifier(attachment)] = (attachment, merged)
                }
                state.failing = true
                state.failures += 1
                state.draining = false
                return min(RedisPool.longestBackoff, .milliseconds(50) * (1 << min(state.failures - 1, 10)))
            }
            condition.lock()
            condition.broadcast()
            condition.unlock()
            if let retry {
                queue.asyncAfter(deadline: .now() + .nanoseconds(Int(nanoseconds(retry)))) { [self] in
                    let start = state.withLock { state -> Bool in
                        guard !state.draining else { return false }
                        state.draining = true
                        return true
                    }
                    if start { drain() }
                }
                return
            }
        }
    }

    /// Publishes one database's queued work; returns what is left when Redis failed.
    private func publish(_ work: Pending, of attachment: RedisAttachment) -> Pending? {
        let name = Array(attachment.database.name.utf8)
        let node = Array(attachment.origin.utf8)
        for (index, invalidation) in work.bulk.enumerated() {
            let generationKey = keys.generation(database: attachment.database.name)
            let payload = InvalidationMessage.encode(invalidation)
            let result = withSpan(Self.roundTripSpan, ofKind: .client) { _ in
                pool.run { [keys, streamLength] connection in
                    try connection.command(
                        [Array("EVAL".utf8), Array(RedisScripts.publishBulk.utf8), Array("3".utf8), keys.sequence,
                         keys.stream, generationKey, streamLength, node, name, payload])
                }
            }
            guard case .success(.array(let parts)) = result, parts.count == 2, let generation = parts[0].integer,
                let sequence = parts[1].integer
            else {
                return remainder(work, fromBulk: index)
            }
            published.note(sequence)
            attachment.noteGeneration(generation)
            metrics.invalidationsSent.increment()
        }
        var start = 0
        while start < work.keys.count {
            let chunk = Array(work.keys[start..<min(start + Self.chunkSize, work.keys.count)])
            guard publish(keys: chunk, of: attachment, name: name, node: node) else {
                var rest = Pending()
                Self.add(.keys(Array(work.keys[start...])), to: &rest)
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
        return rest
    }

    /// Stores each key's current local record in Redis (or removes it), and announces the keys,
    /// in one script.
    private func publish(keys chunk: [SharedTierKey], of attachment: RedisAttachment, name: [UInt8], node: [UInt8]) -> Bool {
        guard let generation = attachment.generation() else { return false }
        var arguments: [[UInt8]] = [
            Array("EVAL".utf8), Array(RedisScripts.publishKeys.utf8), Array(String(chunk.count + 2).utf8),
            keys.sequence, keys.stream,
        ]
        var values: [[UInt8]] = []
        values.reserveCapacity(chunk.count * 2)
        // Closed meanwhile: its records cannot be read any more, so each key is published as a
        // removal (a miss on the other nodes, never a value this process overwrote).
        let detached = attachment.isDetached
        for key in chunk {
            arguments.append(attachment.recordKey(key, generation: generation))
            if !detached, let record = attachment.database.currentRecord(for: key) {
                values.append(record.bytes)
                let milliseconds = record.remainingLifetime.map { max(1, nanoseconds($0) / 1_000_000) } ?? 0
                values.append(Array(String(milliseconds).utf8))
            } else {
                values.append([])
                values.append(Array("0".utf8))
            }
        }
        arguments += [streamLength, node, name, InvalidationMessage.encode(.keys(chunk))]
        arguments += values
        let command = arguments
        let result = withSpan(Self.roundTripSpan, ofKind: .client) { span in
            span.attributes["modelstore.keys"] = chunk.count
            return pool.run { connection in try connection.command(command) }
        }
        guard case .success(let reply) = result, !reply.isError else {
            if case .success(let reply) = result {
                metrics.errors.increment()
                logger.warning("Redis refused a publication", metadata: ["reply": "\(reply)"])
            }
            return false
        }
        if let sequence = reply.integer { published.note(sequence) }
        metrics.writes.increment(by: Int64(chunk.count))
        metrics.invalidationsSent.increment()
        return true
    }
}
