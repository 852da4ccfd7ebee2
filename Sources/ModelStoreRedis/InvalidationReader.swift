import CoreMetrics
import Foundation
import Logging
import ModelStore

/// Follows the tier's invalidation stream on a thread and connection of its own (`XREAD BLOCK`,
/// from the last entry it saw), and drops locally what other processes' writes named.
///
/// It never loses an invalidation silently. Every entry carries the next number of one counter;
/// a number skipped (entries trimmed past this reader), an epoch key that changed or vanished
/// (Redis restarted empty or was flushed), or an entry it cannot read, all mean it cannot know
/// what it missed: every attached database then doubts its local records (each is revalidated
/// against Redis when first read; none is deleted), and, when Redis lost its data, every outbox
/// is published again. A counter that went
/// back (Redis restarted from an older snapshot, or the counter was deleted), or an epoch it had
/// left that came back (a snapshot from before the epoch was last replaced), means more: the
/// records in Redis may be older than writes the fleet already saw, so it also replaces the
/// epoch, which every record key carries, making every record in Redis unreachable for every node.
final class InvalidationReader: Sendable {
    private let endpoint: RedisEndpoint
    private let keys: RedisKeys
    private let registry: AttachedDatabases
    private let metrics: RedisTierMetrics
    private let logger: Logger
    private let published: PublishedSequence
    /// What the log says of Redis being lost and back (the pool's).
    private let health: RedisHealth
    /// Sends the outboxes again when Redis lost its data.
    private let publisher: RedisPublisher
    private let stopped = Guarded(false)
    private let progress = Guarded(Progress())
    /// ``Progress/isFollowing``, stored with it (``update(_:)``): what every Redis read asks
    /// first, read without the lock.
    private let following = FlagWord(false)
    private let progressed = NSCondition()
    /// The epochs the reader followed, oldest first: one that comes back was restored with an
    /// older snapshot.
    private let followed = Guarded<[[UInt8]]>([])

    /// How many former epochs the reader remembers.
    static let followedLimit = 32

    /// How long one `XREAD` blocks; between two, the epoch and the counter are checked.
    static let blockMilliseconds = 500
    /// The largest sequence number a reader takes: beyond it, an entry is another program's.
    static let largestSequence: Int64 = 1 << 60

    /// How far the reader has come since it started.
    private struct Progress {
        /// Connection attempts that failed.
        var failedConnections = 0
        /// Whether the reader has had a position in the stream once.
        var isFollowing = false
        /// Whether its first attempt to follow the stream is over (followed or failed).
        var isSettled = false
        /// The sequence number of the last entry read (tests wait for it to reach the counter).
        var lastSequence: Int64 = 0
    }

    init(
        endpoint: RedisEndpoint, keys: RedisKeys, registry: AttachedDatabases,
        metrics: RedisTierMetrics, logger: Logger, published: PublishedSequence, publisher: RedisPublisher
    ) {
        self.published = published
        self.publisher = publisher
        health = publisher.health
        self.endpoint = endpoint
        self.keys = keys
        self.registry = registry
        self.metrics = metrics
        self.logger = logger
    }

    func start() {
        let thread = Thread { [self] in run() }
        thread.name = "ModelStoreRedis.invalidations"
        thread.start()
    }

    /// Stops following the stream. From now on no record is taken from Redis
    /// (``awaitFollowing(limit:)`` says no at once): nothing would drop it when it is overwritten.
    func stop() {
        stopped.withLock { $0 = true }
        update {
            $0.isFollowing = false
            $0.isSettled = true
        }
    }

    private var isStopped: Bool { stopped.withLock { $0 } }

    /// Connection attempts that failed since the reader started.
    var failedConnections: Int { progress.withLock { $0.failedConnections } }
    /// Whether the reader has had a position in the stream once.
    var isFollowing: Bool { progress.withLock { $0.isFollowing } }
    /// The sequence number of the last entry the reader has read and applied.
    var lastSequence: Int64 { progress.withLock { $0.lastSequence } }

    /// Whether records may be taken from Redis: only once the reader follows the stream, since it
    /// starts at the stream's end, and a record read before that position could be overwritten
    /// by an entry before it, which the reader never sees. Waits for the reader's first attempt
    /// (at most `limit`), never for later ones: while Redis is down at start, a miss at once.
    func awaitFollowing(limit: Duration) -> Bool {
        if following.value { return true }
        let deadline = Date().addingTimeInterval(TimeBounds.seconds(limit))
        progressed.lock()
        defer { progressed.unlock() }
        while true {
            let (following, settled) = progress.withLock { ($0.isFollowing, $0.isSettled) }
            if following { return true }
            if settled || !progressed.wait(until: deadline) { return progress.withLock { $0.isFollowing } }
        }
    }

    private func update(_ change: (inout Progress) -> Void) {
        progressed.lock()
        progress.withLock { progress in
            change(&progress)
            following.set(progress.isFollowing)
        }
        progressed.broadcast()
        progressed.unlock()
    }

    /// Where the reader is in the stream.
    private struct Position {
        var id: [UInt8]
        var sequence: Int64
        var epoch: [UInt8]
        /// When the epoch and counter were last checked: at least every `blockMilliseconds`,
        /// also while entries keep coming (else a replaced epoch goes unnoticed under traffic).
        var checkedAt = ContinuousClock.now
    }

    private func run() {
        var position: Position? = nil
        var failures = 0
        // Whether the last failure was Redis's answer on a working connection (a damaged key),
        // rather than Redis being unreachable.
        var refused = false
        while !isStopped {
            if failures > 0 {
                // After any failure, connecting or reading: a damaged key that fails every read
                // must not turn this thread into a loop of reconnections. Redis unreachable is
                // tried again sooner: this thread tells the pool and the publisher it is back.
                let limit = refused ? RedisPool.longestBackoff : RedisPool.longestBackgroundBackoff
                let backoff = RedisPool.backoff(afterFailures: failures, limit: limit)
                Thread.sleep(forTimeInterval: TimeBounds.seconds(backoff))
                if isStopped { return }
            }
            let connection: RedisConnection
            do {
                connection = try RedisConnection(endpoint)
                connection.setTimeout(endpoint.commandTimeout + .milliseconds(Self.blockMilliseconds))
                if failures > 0 { metrics.reconnects.increment() }
            } catch {
                failures += 1
                refused = false
                update {
                    $0.failedConnections += 1
                    $0.isSettled = true
                }
                metrics.errors.increment()
                continue
            }
            do throws(RedisFailure) {
                position = try resume(from: position, on: connection)
                if failures > 0 { publisher.redisIsReachable() }
                // Not after a stop (which may have come while this connection resumed).
                update {
                    $0.isFollowing = !isStopped
                    $0.isSettled = true
                }
                while !isStopped, let current = position {
                    let next = try readOnce(from: current, on: connection)
                    position = next
                    progress.withLock { $0.lastSequence = next.sequence }
                    failures = 0
                }
            } catch {
                update { $0.isSettled = true }
                guard !isStopped else { return }
                failures += 1
                refused = !error.brokeConnection && !connection.isBroken
                metrics.errors.increment()
                health.failed("the invalidation stream (reconnecting)", error)
            }
        }
    }

    /// After a (re)connection: checks the epoch and the counter; starts at the stream's end on
    /// the first connection (attaching doubted the local records, and no record is taken from
    /// Redis before this: ``awaitFollowing(limit:)``), else where it was.
    private func resume(from position: Position?, on connection: RedisConnection) throws(RedisFailure) -> Position {
        guard let position else { return try end(on: connection, epoch: try currentEpoch(on: connection)) }
        return try checked(position, on: connection)
    }

    /// `position` if Redis still holds what it was read from; else, after doubting, the end of
    /// the stream Redis holds now.
    private func checked(_ position: Position, on connection: RedisConnection) throws(RedisFailure) -> Position {
        // The highest number seen: read from the stream, or returned to this process's own
        // publications (which this reader may not have read yet). Taken BEFORE the counter: a
        // publication noted by then got its number before the `GET` below, so a counter below it
        // went back; taken after, a publication finishing in between looks like one going back.
        let seen = max(position.sequence, published.value(in: position.epoch))
        // One of this process's publications got a number not above an earlier one's: the
        // counter went back, though publications since may have raised it past `seen` again.
        let publicationWentBack = published.takeWentBack()
        let epoch = try currentEpoch(on: connection)
        let counter = try connection.command([Array("GET".utf8), keys.sequence])
        // Missing: the counter is gone (deleted, restarted empty, or the epoch survived a loss);
        // not a number: a publication replaces it, and its entry then shows the counter went back.
        let current: Int64? = counter == .null ? 0 : counter.integer
        guard epoch == position.epoch else {
            // An epoch this reader followed before, then left: Redis was restored from a snapshot
            // taken before the epoch was last replaced, and the records of that older epoch are
            // reachable again. A fresh epoch (Redis restarted empty, or another node's answer to
            // a loss) only doubts: every record under it was written after the loss, which the
            // numbers compared above, and a publication's going back, can only be of.
            if hasFollowed(epoch) {
                return try rolledBack(on: connection, replacing: epoch, "an epoch it had left came back (an older snapshot)")
            }
            doubtAll("Redis restarted empty or was flushed (its epoch changed)", dataLost: true, rolledBack: Self.isRollbackEpoch(epoch))
            return try end(on: connection, epoch: epoch)
        }
        if publicationWentBack {
            return try rolledBack(on: connection, replacing: epoch, "a publication got a number not above an earlier one's")
        }
        if let current, current < seen {
            return try rolledBack(on: connection, replacing: epoch, "the sequence counter went back (\(current) after \(seen))")
        }
        var position = position
        position.checkedAt = ContinuousClock.now
        return position
    }

    /// Notes that the reader follows `epoch` (kept: the last ``followedLimit``).
    private func follow(_ epoch: [UInt8]) {
        followed.withLock { epochs in
            epochs.removeAll { $0 == epoch }
            epochs.append(epoch)
            if epochs.count > Self.followedLimit { epochs.removeFirst(epochs.count - Self.followedLimit) }
        }
    }

    /// Whether `epoch` is the one the reader follows now (tests wait for it).
    func followsEpoch(_ epoch: [UInt8]) -> Bool {
        followed.withLock { $0.last == epoch }
    }

    /// Whether the reader followed `epoch` once.
    private func hasFollowed(_ epoch: [UInt8]) -> Bool {
        followed.withLock { $0.contains(epoch) }
    }

    /// Redis's data went back in time (restored from an older snapshot, or its counter was
    /// deleted): records in it may predate writes the fleet saw. A new epoch makes every record
    /// key unreachable for every node (each sees the epoch change and doubts); this one doubts now.
    ///
    /// `expected` is the epoch found to have gone back: replaced only if it is still there. Else
    /// another node replaced it first (one new epoch for the fleet, not one per node that noticed),
    /// unless the one there now is one this reader left, come back: that one is replaced too.
    private func rolledBack(
        on connection: RedisConnection, replacing expected: [UInt8], _ reason: String
    ) throws(RedisFailure) -> Position {
        let fresh = Self.rollbackEpoch()
        var epoch = try currentEpoch(on: connection, replacing: expected, with: fresh)
        if epoch != fresh && hasFollowed(epoch) {
            epoch = try currentEpoch(on: connection, replacing: epoch, with: Self.rollbackEpoch())
        }
        doubtAll("Redis went back in time: \(reason); every record in Redis is dropped (a new epoch)", dataLost: true, rolledBack: true)
        return try end(on: connection, epoch: epoch)
    }

    /// The epoch, created if missing, replaced if it is not a short string (another client's
    /// value), or replaced when it is still `replacing`: a random value (`fresh`) that lives as
    /// long as Redis's data does.
    private func currentEpoch(
        on connection: RedisConnection, replacing: [UInt8]? = nil, with fresh: [UInt8] = Array(UUID().uuidString.utf8)
    ) throws(RedisFailure) -> [UInt8] {
        let reply = try connection.command([
            Array("EVAL".utf8), Array(RedisScripts.epoch.utf8), Array("1".utf8), keys.epoch,
            fresh, Array((replacing == nil ? "0" : "1").utf8), replacing ?? [],
        ])
        guard let epoch = reply.bytes, !epoch.isEmpty else {
            throw RedisFailure(description: "could not read the epoch: \(reply)", brokeConnection: false)
        }
        return epoch
    }

    /// The position just after the stream's last entry, numbered by the counter (the one
    /// authority: the last entry may be another client's, numbered anything, and starting from
    /// a number above the counter would make every later check find the counter "gone back").
    private func end(on connection: RedisConnection, epoch: [UInt8]) throws(RedisFailure) -> Position {
        let replies = try connection.pipeline([
            [Array("XREVRANGE".utf8), keys.stream, Array("+".utf8), Array("-".utf8), Array("COUNT".utf8), Array("1".utf8)],
            [Array("GET".utf8), keys.sequence],
        ])
        let counter = replies[1].integer.flatMap { (0...Self.largestSequence).contains($0) ? $0 : nil } ?? 0
        // Starting again from the counter: what this process published before is of data it has
        // just doubted (a new epoch, a counter gone back) or that this position already covers.
        published.reset()
        follow(epoch)
        var id = Array("0-0".utf8)
        if case .array(let entries) = replies[0], case .array(let parts)? = entries.first, let last = parts.first?.bytes {
            id = last
        }
        return Position(id: id, sequence: counter, epoch: epoch)
    }

    /// One blocking read: applies what it returns, or checks the epoch and counter when nothing came.
    private func readOnce(from position: Position, on connection: RedisConnection) throws(RedisFailure) -> Position {
        let reply = try connection.command([
            Array("XREAD".utf8), Array("COUNT".utf8), Array("512".utf8), Array("BLOCK".utf8),
            Array(String(Self.blockMilliseconds).utf8), Array("STREAMS".utf8), keys.stream, position.id,
        ])
        var position = position
        switch reply {
        case .null:
            return try checked(position, on: connection)
        case .array(let streams):
            guard case .array(let stream)? = streams.first, stream.count == 2, case .array(let entries) = stream[1] else {
                throw RedisFailure(description: "an XREAD reply ModelStoreRedis cannot read", brokeConnection: false)
            }
            for raw in entries {
                guard let entry = Entry(raw) else {
                    doubtAll("an entry of the invalidation stream could not be read", dataLost: false, rolledBack: false)
                    if case .array(let fields) = raw, let id = fields.first?.bytes { position.id = id }
                    continue
                }
                // Another epoch's entry: Redis's data was replaced (restarted empty, flushed) and
                // a node already publishes under the new epoch. Acted on at once, not at the next
                // check; an epoch this reader left, come back, is an older snapshot.
                if let epoch = entry.epoch, epoch != position.epoch {
                    if hasFollowed(epoch) {
                        return try rolledBack(on: connection, replacing: epoch, "an epoch it had left came back (an older snapshot)")
                    }
                    doubtAll(
                        "Redis restarted empty or was flushed (an entry of a new epoch)", dataLost: true,
                        rolledBack: Self.isRollbackEpoch(epoch))
                    follow(epoch)
                    published.reset()
                    position.epoch = epoch
                    position.sequence = entry.sequence - 1
                }
                if entry.sequence <= position.sequence {
                    return try rolledBack(
                        on: connection, replacing: position.epoch, "entry \(entry.sequence) after \(position.sequence): the counter went back")
                }
                if entry.sequence != position.sequence + 1 {
                    doubtAll("invalidations were missed (entry \(entry.sequence) after \(position.sequence))", dataLost: false, rolledBack: false)
                }
                position.id = entry.id
                position.sequence = entry.sequence
                apply(entry)
            }
            if ContinuousClock.now - position.checkedAt >= .milliseconds(Self.blockMilliseconds) {
                return try checked(position, on: connection)
            }
            return position
        case .error(let message):
            // The stream's key holds another type (another client wrote it): entries it held are
            // lost. Deleted here, so the next publication starts a new stream.
            if message.hasPrefix("WRONGTYPE"),
                case .integer(1) = try connection.command([
                    Array("EVAL".utf8), Array(RedisScripts.repairStream.utf8), Array("1".utf8), keys.stream,
                ])
            {
                doubtAll("the invalidation stream's key held another Redis type; deleted it", dataLost: false, rolledBack: false)
                return position
            }
            throw RedisFailure(description: message, brokeConnection: false)
        default:
            throw RedisFailure(description: "an XREAD reply ModelStoreRedis cannot read", brokeConnection: false)
        }
    }

    /// Applies `entry` to every attachment of its database but the one that published it.
    private func apply(_ entry: Entry) {
        for attachment in registry.attachments(named: entry.database) where attachment.origin != entry.origin {
            apply(entry, to: attachment)
        }
    }

    private func apply(_ entry: Entry, to attachment: RedisAttachment) {
        metrics.invalidationsReceived.increment()
        // Another node found the database's generation missing and made a new one (a new
        // database, or Redis lost its data, which the epoch tells: see `checked`): read it again.
        if entry.payload == InvalidationMessage.generationReset {
            attachment.forgetGeneration()
            return
        }
        guard let invalidation = InvalidationMessage.decode(entry.payload) else {
            metrics.doubts.increment()
            logger.warning("An invalidation could not be read; doubting the database's local records",
                metadata: ["database": "\(entry.database)"])
            attachment.forgetGeneration()
            attachment.tagClocks.markStale()
            attachment.database.enterDoubt()
            return
        }
        // A bulk removal raised the generation: read it again from Redis, the one place that
        // holds it (an entry's own number could be another client's).
        if entry.isBulk { attachment.forgetGeneration() }
        // A tag removal's clock: before the local removal, so that no read of this node takes a
        // record it covers from Redis once its local copy is gone (TagClocks.swift).
        if case .tag(let tag, let version?) = invalidation { attachment.tagClocks.note(tag, version: version.time) }
        if invalidation == .database { metrics.localClears.increment() }
        attachment.database.apply(invalidation)
    }

    /// An epoch a node makes when Redis went back in time: marked (`r:`), so that a node that
    /// could not tell (it started after the restore, and saw no higher number) learns it from the
    /// epoch alone. One made for a missing epoch (Redis lost its data) is a bare UUID.
    static func rollbackEpoch() -> [UInt8] {
        Array(("r:" + UUID().uuidString).utf8)
    }

    static func isRollbackEpoch(_ epoch: [UInt8]) -> Bool {
        epoch.starts(with: Array("r:".utf8))
    }

    /// This process cannot know what it missed: every attached database doubts its local records
    /// (revalidating each against Redis when first read; none is deleted). With `dataLost`, Redis
    /// lost what it held, so every outbox publishes what it still holds again; with `rolledBack`,
    /// what it held went back in time, so the records read from it lately are dropped too (they
    /// may be the older snapshot's).
    private func doubtAll(_ reason: String, dataLost: Bool, rolledBack: Bool) {
        logger.warning("Doubting the local records of every attached database", metadata: ["reason": "\(reason)"])
        for attachment in registry.all {
            metrics.doubts.increment()
            attachment.forgetGeneration()
            // Tag removals may have been missed too: the clocks are loaded again at the next read.
            attachment.tagClocks.markStale()
            // Read from data that may have been rolled back: dropped, so read again.
            if rolledBack { attachment.database.dropRecentFills() }
            // Lost, not rolled back: what the node holds is as current as the stream made it.
            if dataLost, !rolledBack {
                attachment.database.enterDoubtAfterDataLoss()
            } else {
                attachment.database.enterDoubt()
            }
        }
        if dataLost { publisher.republishOutboxes() }
    }

    /// One stream entry: `n`, `o` (origin), `d` (database), `g` (generation, bulk only), `x` (payload).
    private struct Entry {
        var id: [UInt8]
        var sequence: Int64
        /// `o`: the node and the publishing attachment's serial (`<node>#<serial>`).
        var origin: String
        var database: String
        var isBulk: Bool
        /// `e`: the epoch the publisher knew (nil in entries of releases before it, or of others).
        var epoch: [UInt8]?
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
            // A number out of range is not one of the tier's: taking it would make the next
            // expected number overflow.
            guard let sequence = values["n"].flatMap({ Int64(String(decoding: $0, as: UTF8.self)) }),
                (1...InvalidationReader.largestSequence).contains(sequence),
                let node = values["o"], let database = values["d"], let payload = values["x"]
            else { return nil }
            self.id = id
            self.sequence = sequence
            origin = String(decoding: node, as: UTF8.self)
            self.database = String(decoding: database, as: UTF8.self)
            isBulk = !(values["g"] ?? []).isEmpty
            epoch = values["e"].flatMap { $0.isEmpty ? nil : $0 }
            self.payload = payload
        }
    }
}
