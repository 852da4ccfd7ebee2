import Foundation
public import ModelStore
public import Logging

/// A shared tier on Redis: every process of a fleet that sets it as its
/// ``ModelStore/ModelStore/Configuration/sharedTier`` reads what the others stored, and drops
/// what they changed.
///
/// ```swift
/// let tier = try RedisTier(host: "127.0.0.1", port: 6379, keyPrefix: "myapp:")
/// var configuration = ModelStore.Configuration()
/// configuration.sharedTier = tier
/// let users = try ModelStore(name: "users", policy: .low, configuration: configuration)
/// ```
///
/// Records live in Redis exactly as the local store keeps them (envelope, checksum, payload),
/// with a millisecond lifetime (`PX`) equal to their remaining one; invalidations travel in a
/// Redis stream that each process reads from where it left off, so a process that was
/// disconnected gets what it missed, and doubts its local records when it cannot know (the
/// stream was trimmed past it, or Redis restarted empty). Redis being down or slow is never an
/// error for readers and writers: local tiers keep serving, failures are logged and counted.
/// The RunningAFleet article has the consistency model.
///
/// hiredis (Debian `libhiredis-dev`, Homebrew `hiredis`) is the client: its blocking calls never
/// run on Swift's cooperative pool. A caller on a thread of its own makes them itself; a caller
/// in a task has them made on the tier's own threads.
public final class RedisTier: SharedTier, Sendable {
    /// Where every Redis key of this tier starts.
    public let keyPrefix: String
    let endpoint: RedisEndpoint
    let keys: RedisKeys
    let pool: RedisPool
    let metrics: RedisTierMetrics
    let logger: Logger
    /// This process's name in the stream; each attachment adds its serial (`#<serial>`), so it
    /// skips its own invalidations and no other.
    let node: String
    /// How many entries the stream keeps (approximately): a process disconnected for longer
    /// than that many writes doubts its local records when it comes back.
    let streamLength: Int
    /// How long a fetch lock lives when its holder dies.
    let fetchLockLifetime: Duration
    /// How long a removal's tombstone, and a tag removal's clock, live in Redis.
    let tombstoneLifetime: Duration
    let publisher: RedisPublisher
    let registry: AttachedDatabases
    let reader: InvalidationReader
    /// Whether the tier's calls make spans, cached (TracingCheck.swift).
    let tracing = TracingCheck()

    /// A tier over the Redis server at `host`:`port`, under keys that start with `keyPrefix`.
    /// Nothing connects yet: the first read or write does, and an unreachable Redis is never an
    /// error (see the type's notes).
    ///
    /// - Parameters:
    ///   - host: The server's name or address.
    ///   - port: Its TCP port (1–65535).
    ///   - keyPrefix: Every key of the tier starts with it; give each application its own.
    ///   - password: Sent with `AUTH` on every new connection; nil: none.
    ///   - database: The Redis database number (`SELECT`), 0 by default.
    ///   - connectTimeout: How long a connection attempt may take (default 1 s).
    ///   - commandTimeout: How long a reply may take (default 250 ms): a read on a local miss,
    ///     or a write's publication, waits at most about this long.
    ///   - streamLength: How many invalidations the stream keeps (approximately; default 100,000).
    ///   - fetchLockLifetime: How long another process waits for a fetch whose holder died
    ///     (default 5 s).
    ///   - tombstoneLifetime: How long Redis keeps a removal's tombstone (default 10 minutes): a
    ///     publication of an older version that arrives within it (a connection that stalled)
    ///     changes nothing. A tag removal's clock lives as long, then is folded into its bucket's
    ///     floor (TagClocks.swift). The RunningAFleet article says what they cost.
    ///   - logger: Where failures are logged.
    /// - Throws: ``ModelStore/ModelStoreError/invalidPolicy(reason:)`` for an empty host, a port
    ///   out of range, a negative database or stream length, or a duration that is not positive
    ///   (longer ones are capped at a year, as everywhere: `TimeBounds`).
    public init(
        host: String, port: Int = 6379, keyPrefix: String, password: String? = nil, database: Int = 0,
        connectTimeout: Duration = .seconds(1), commandTimeout: Duration = .milliseconds(250),
        streamLength: Int = 100_000, fetchLockLifetime: Duration = .seconds(5), tombstoneLifetime: Duration = .seconds(600),
        logger: Logger = Logger(label: "ModelStoreRedis")
    ) throws {
        if host.isEmpty { throw ModelStoreError.invalidPolicy(reason: "RedisTier's host is empty; name a server") }
        if !(1...65535).contains(port) {
            throw ModelStoreError.invalidPolicy(reason: "RedisTier's port is \(port); use 1 to 65535")
        }
        if database < 0 {
            throw ModelStoreError.invalidPolicy(reason: "RedisTier's database is \(database); use 0 or more")
        }
        if streamLength < 1 {
            throw ModelStoreError.invalidPolicy(reason: "RedisTier's streamLength is \(streamLength); use 1 or more")
        }
        for (duration, setting) in [
            (connectTimeout, "connectTimeout"), (commandTimeout, "commandTimeout"), (fetchLockLifetime, "fetchLockLifetime"),
            (tombstoneLifetime, "tombstoneLifetime"),
        ] {
            try TimeBounds.validateTimeout(duration, setting: "RedisTier's " + setting)
            // hiredis reads a zero timeout as none at all: a call could then block forever.
            if duration == .zero {
                throw ModelStoreError.invalidPolicy(reason: "RedisTier's \(setting) is zero; use a positive duration")
            }
        }
        Self.ignoreBrokenPipes()
        self.keyPrefix = keyPrefix
        self.logger = logger
        endpoint = RedisEndpoint(
            host: host, port: port, password: password, database: database,
            connectTimeout: TimeBounds.wait(connectTimeout), commandTimeout: TimeBounds.wait(commandTimeout))
        keys = RedisKeys(prefix: Array(keyPrefix.utf8))
        metrics = RedisTierMetrics(tier: keyPrefix)
        pool = RedisPool(endpoint: endpoint, size: 4, metrics: metrics, logger: logger)
        node = Self.makeNodeName()
        self.streamLength = streamLength
        self.fetchLockLifetime = TimeBounds.wait(fetchLockLifetime)
        self.tombstoneLifetime = TimeBounds.wait(tombstoneLifetime)
        registry = AttachedDatabases()
        let published = PublishedSequence()
        publisher = RedisPublisher(
            pool: pool, keys: keys, streamLength: streamLength, registry: registry, metrics: metrics,
            logger: logger, waitLimit: endpoint.commandTimeout * 2, published: published,
            tombstoneLifetime: self.tombstoneLifetime)
        reader = InvalidationReader(
            endpoint: endpoint, keys: keys, registry: registry, metrics: metrics, logger: logger, published: published,
            publisher: publisher)
        reader.start()
    }

    deinit {
        reader.stop()
    }

    /// Stops reading invalidations and closes the tier's idle connections. Stores that still use
    /// the tier keep working from their local tiers: they no longer read records from Redis
    /// (nothing would tell them when one is overwritten), while their writes are still published,
    /// so that no other node keeps a value they overwrote. Call it when the program shuts down.
    public func shutdown() {
        reader.stop()
        pool.closeIdle()
    }

    /// See ``SharedTier/attach(_:)``. This process cannot know what other processes changed
    /// while it did not follow the stream, so the database's local records are doubted (each is
    /// revalidated against Redis when first read; none is deleted), and what its outbox owes
    /// (writes a killed process never published) is published first.
    public func attach(_ database: SharedTierDatabase) -> any SharedTierAttachment {
        let attachment = RedisAttachment(tier: self, database: database)
        // Registered first, so no invalidation that arrives meanwhile is lost.
        registry.add(attachment)
        database.enterDoubt()
        publisher.enqueueOutbox(of: attachment)
        return attachment
    }

    /// Makes a write to a connection Redis closed an error (EPIPE) instead of the end of the
    /// process: hiredis writes without `MSG_NOSIGNAL`, and a process keeps SIGPIPE's default
    /// action (terminate) unless it says otherwise. A handler the program installed is kept.
    private static func ignoreBrokenPipes() {
        var current = sigaction()
        guard sigaction(SIGPIPE, nil, &current) == 0 else { return }
        #if canImport(Glibc)
        let isDefault = current.__sigaction_handler.sa_handler == nil
        #else
        let isDefault = current.__sigaction_u.__sa_handler == nil
        #endif
        if isDefault { signal(SIGPIPE, SIG_IGN) }
    }

    /// A process's name in the stream: host, process id and random bits.
    private static func makeNodeName() -> String {
        let random = (0..<8).map { _ in String(UInt8.random(in: 0...255), radix: 16) }.joined()
        return "\(ProcessInfo.processInfo.hostName)/\(getpid())/\(random)"
    }
}

/// The databases attached to one tier in this process, by name. One name may have several
/// attachments: stores of one name in different directories are local copies of one fleet
/// database, and each hears of the others' writes through the stream like another node's.
final class AttachedDatabases: Sendable {
    private let state = Guarded<[String: [RedisAttachment]]>([:])
    private let serials = Guarded<UInt64>(0)

    /// A number no other attachment of this tier has had: it tells this process's attachments
    /// apart in the stream (`<node>#<serial>`).
    func nextSerial() -> UInt64 {
        serials.withLock { serial in
            serial += 1
            return serial
        }
    }

    func add(_ attachment: RedisAttachment) {
        state.withLock { $0[attachment.database.name, default: []].append(attachment) }
    }

    func remove(_ attachment: RedisAttachment) {
        state.withLock { state in
            let name = attachment.database.name
            state[name]?.removeAll { $0 === attachment }
            if state[name]?.isEmpty == true { state[name] = nil }
        }
    }

    func attachments(named name: String) -> [RedisAttachment] {
        state.withLock { $0[name] ?? [] }
    }

    var all: [RedisAttachment] { state.withLock { $0.values.flatMap { $0 } } }
}
