import CoreMetrics
import Foundation
import Logging
import ModelStore

/// Follows the tier's invalidation stream on a thread and connection of its own (`XREAD BLOCK`,
/// from the last entry it saw), and drops locally what other processes' writes named.
///
/// It never loses an invalidation silently. Every entry carries the next number of one counter;
/// a number skipped (entries trimmed past this reader, or the counter gone with a Redis that
/// restarted empty), an epoch key that changed or vanished, or an entry it cannot read, all mean
/// it cannot know what it missed: it then clears the local tiers of every attached database.
final class InvalidationReader: Sendable {
    private let endpoint: RedisEndpoint
    private let keys: RedisKeys
    private let node: String
    private let registry: AttachedDatabases
    private let metrics: RedisTierMetrics
    private let logger: Logger
    private let stopped = Guarded(false)

    /// How long one `XREAD` blocks; between two, the epoch is checked.
    static let blockMilliseconds = 500

    init(
        endpoint: RedisEndpoint, keys: RedisKeys, node: String, registry: AttachedDatabases,
        metrics: RedisTierMetrics, logger: Logger
    ) {
        self.endpoint = endpoint
        self.keys = keys
        self.node = node
        self.registry = registry
        self.metrics = metrics
        self.logger = logger
    }

    func start() {
        let thread = Thread { [self] in run() }
        thread.name = "ModelStoreRedis.invalidations"
        thread.start()
    }

    func stop() {
        stopped.withLock { $0 = true }
    }

    private var isStopped: Bool { stopped.withLock { $0 } }

    /// Where the reader is in the stream.
    private struct Position {
        var id: [UInt8]
        var sequence: Int64
        var epoch: [UInt8]
    }

    private func run() {
        var position: Position? = nil
        var failures = 0
        while !isStopped {
            let connection: RedisConnection
            do {
                connection = try RedisConnection(endpoint)
                connection.setTimeout(endpoint.commandTimeout + .milliseconds(Self.blockMilliseconds))
                if failures > 0 { metrics.reconnects.increment() }
            } catch {
                failures += 1
                metrics.errors.increment()
                let backoff = min(RedisPool.longestBackoff, .milliseconds(50) * (1 << min(failures - 1, 10)))
                Thread.sleep(forTimeInterval: TimeBounds.seconds(backoff))
                continue
            }
            do throws(RedisFailure) {
                position = try resume(from: position, on: connection)
                failures = 0
                while !isStopped, let current = position {
                    position = try readOnce(from: current, on: connection)
                }
            } catch {
                guard !isStopped else { return }
                failures += 1
                metrics.errors.increment()
                logger.warning("Lost the invalidation stream; reconnecting", metadata: ["error": "\(error)"])
            }
        }
    }

    /// After a (re)connection: checks the epoch; starts at the stream's end on the first
    /// connection (attaching cleared the local tiers), else where it was.
    private func resume(from position: Position?, on connection: RedisConnection) throws(RedisFailure) -> Position {
        let epoch = try currentEpoch(on: connection)
        if var position {
            guard position.epoch == epoch else {
                clearAll("Redis restarted empty or was flushed (its epoch changed)")
                return try end(on: connection, epoch: epoch)
            }
            position.epoch = epoch
            return position
        }
        return try end(on: connection, epoch: epoch)
    }

    /// The epoch, created if missing: a random value that lives as long as Redis's data does.
    private func currentEpoch(on connection: RedisConnection) throws(RedisFailure) -> [UInt8] {
        let fresh = Array(UUID().uuidString.utf8)
        let replies = try connection.pipeline([
            [Array("SET".utf8), keys.epoch, fresh, Array("NX".utf8)], [Array("GET".utf8), keys.epoch],
        ])
        guard let epoch = replies[1].bytes else {
            throw RedisFailure(description: "could not read the epoch: \(replies)", brokeConnection: false)
        }
        return epoch
    }

    /// The position just after the stream's last entry.
    private func end(on connection: RedisConnection, epoch: [UInt8]) throws(RedisFailure) -> Position {
        let replies = try connection.pipeline([
            [Array("XREVRANGE".utf8), keys.stream, Array("+".utf8), Array("-".utf8), Array("COUNT".utf8), Array("1".utf8)],
            [Array("GET".utf8), keys.sequence],
        ])
        if case .array(let entries) = replies[0], let last = entries.first, let entry = Entry(last) {
            return Position(id: entry.id, sequence: entry.sequence, epoch: epoch)
        }
        return Position(id: Array("0-0".utf8), sequence: replies[1].integer ?? 0, epoch: epoch)
    }

    /// One blocking read: applies what it returns, or checks the epoch when nothing came.
    private func readOnce(from position: Position, on connection: RedisConnection) throws(RedisFailure) -> Position {
        let reply = try connection.command([
            Array("XREAD".utf8), Array("COUNT".utf8), Array("512".utf8), Array("BLOCK".utf8),
            Array(String(Self.blockMilliseconds).utf8), Array("STREAMS".utf8), keys.stream, position.id,
        ])
        var position = position
        switch reply {
        case .null:
            let epoch = try currentEpoch(on: connection)
            if epoch != position.epoch {
                clearAll("Redis restarted empty or was flushed (its epoch changed)")
                return try end(on: connection, epoch: epoch)
            }
            return position
        case .array(let streams):
            guard case .array(let stream)? = streams.first, stream.count == 2, case .array(let entries) = stream[1] else {
                throw RedisFailure(description: "an XREAD reply ModelStoreRedis cannot read", brokeConnection: false)
            }
            for raw in entries {
                guard let entry = Entry(raw) else {
                    clearAll("an entry of the invalidation stream could not be read")
                    if case .array(let fields) = raw, let id = fields.first?.bytes { position.id = id }
                    continue
                }
                if entry.sequence != position.sequence + 1 {
                    clearAll("invalidations were missed (entry \(entry.sequence) after \(position.sequence))")
                }
                position.id = entry.id
                position.sequence = entry.sequence
                guard entry.node != node else { continue }
                apply(entry)
            }
            return position
        case .error(let message):
            throw RedisFailure(description: message, brokeConnection: false)
        default:
            throw RedisFailure(description: "an XREAD reply ModelStoreRedis cannot read", brokeConnection: false)
        }
    }

    private func apply(_ entry: Entry) {
        guard let attachment = registry.attachment(named: entry.database) else { return }
        metrics.invalidationsReceived.increment()
        guard let invalidation = InvalidationMessage.decode(entry.payload) else {
            metrics.localClears.increment()
            logger.warning("An invalidation could not be read; clearing the database's local tiers",
                metadata: ["database": "\(entry.database)"])
            attachment.database.clearLocalTiers()
            return
        }
        if let generation = entry.generation { attachment.noteGeneration(generation) }
        attachment.database.apply(invalidation)
    }

    private func clearAll(_ reason: String) {
        logger.warning("Clearing the local tiers of every attached database", metadata: ["reason": "\(reason)"])
        for attachment in registry.all {
            metrics.localClears.increment()
            attachment.forgetGeneration()
            attachment.database.clearLocalTiers()
        }
    }

    /// One stream entry: `n`, `o` (node), `d` (database), `g` (generation, bulk only), `x` (payload).
    private struct Entry {
        var id: [UInt8]
        var sequence: Int64
        var node: String
        var database: String
        var generation: Int64?
        var payload: [UInt8]

        init?(_ reply: RedisReply) {
            guard case .array(let parts) = reply, parts.count == 2, let id = parts[0].bytes,
                case .array(let fields) = parts[1], fields.count % 2 == 0
            else { return nil }
            var values: [String: [UInt8]] = [:]
            for index in stride(from: 0, to: fields.count, by: 2) {
                guard let name = fields[index].text, let value = fields[index + 1].bytes else { return nil }
                values[name] = value
            }
            guard let sequence = values["n"].flatMap({ Int64(String(decoding: $0, as: UTF8.self)) }),
                let node = values["o"], let database = values["d"], let payload = values["x"]
            else { return nil }
            self.id = id
            self.sequence = sequence
            self.node = String(decoding: node, as: UTF8.self)
            self.database = String(decoding: database, as: UTF8.self)
            generation = values["g"].flatMap { Int64(String(decoding: $0, as: UTF8.self)) }
            self.payload = payload
        }
    }
}
