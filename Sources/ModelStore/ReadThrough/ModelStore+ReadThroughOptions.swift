import CoreMetrics
import Foundation
import Logging

extension ModelStore {
    /// Returns the stored model for `key`, fetching a fresh one when it is missing or expired,
    /// with the fail-safe, timeouts, refresh-ahead and negative caching of `options`.
    ///
    /// ```swift
    /// var options = ReadThroughOptions()
    /// options.lifetime = 300
    /// options.staleIfError = 3_600
    /// let user = try await store.object(User.self, forKey: "user:42", options: options) { previous in
    ///     let etag = try previous?.metadata(HTTPInfo.self)?.etag
    ///     switch try await api.user(42, ifNoneMatch: etag) {
    ///     case let .ok(user, etag, maxAge): return .value(user, expiresAfter: maxAge, metadata: HTTPInfo(etag: etag))
    ///     case let .notModified(maxAge):    return .notModified(expiresAfter: maxAge)
    ///     case .notFound:                   return .notFound
    ///     }
    /// }
    /// ```
    ///
    /// What a call does, in order:
    /// 1. If a ``FetchResult/notFound`` for `key` is remembered (``ReadThroughOptions/notFoundLifetime``),
    ///    it returns nil without fetching.
    /// 2. A live record is returned at once (a *hit*). If it is older than
    ///    ``ReadThroughOptions/refreshAhead`` of its lifetime, one background refresh starts for
    ///    the key (never two at a time); its failure is logged, never thrown, and leaves the record.
    /// 3. Otherwise the call fetches, or joins the fetch in flight for `key`: concurrent callers
    ///    in this process share exactly one fetch (keys compared by bytes). `fetch` receives the
    ///    stored entry even if expired, so it can send validators. Its result is stored:
    ///    ``FetchResult/value(_:expiresAfter:metadata:)`` replaces the record,
    ///    ``FetchResult/notModified(expiresAfter:)`` keeps it with a new lifetime,
    ///    ``FetchResult/notFound`` removes it and the call returns nil.
    /// 4. A failed fetch never removes the record. Within ``ReadThroughOptions/staleIfError`` of its
    ///    expiry, the expired record is returned instead of the error (*fail-safe*). With
    ///    ``ReadThroughOptions/failSafeThrottle``, calls for the record in the following seconds
    ///    get that stale record without fetching, until a write of the key or the throttle's end.
    /// 5. With such a usable stale record, ``ReadThroughOptions/softTimeout`` returns it when the
    ///    fetch takes longer; ``ReadThroughOptions/hardTimeout`` bounds every wait (the stale record
    ///    if allowed, else ``ModelStoreError/fetchTimedOut(key:after:)``). After a timeout the fetch
    ///    goes on in the background and stores its result for later reads.
    ///
    /// A cancelled caller stops waiting at once and throws `CancellationError` (never a stale
    /// record); the fetch goes on for the others. When the last caller waiting for it is
    /// cancelled (and none timed out), the fetch is cancelled and stores nothing.
    ///
    /// Counters (hits, misses, stale served, fail-safe throttled, fetches, failures, coalesced waits,
    /// refresh-aheads, not-found hits, timeouts) are reported through swift-metrics, labelled `database` and
    /// `collection` (`""` here: the store's own keys).
    ///
    /// A hit runs on the caller's executor, as ``object(_:forKey:)`` would (the function is
    /// `nonisolated(nonsending)`); fetching, refreshing and storing run on the global concurrent
    /// executor, never on the caller's actor.
    ///
    /// - Parameters:
    ///   - type: The model's type.
    ///   - key: The record's key.
    ///   - options: Lifetimes, fail-safe, timeouts, refresh-ahead, negative caching.
    ///   - fetch: Gets the stored entry (nil if none, possibly expired) and asks the source.
    ///     It is `sending`, not `@Sendable`: it may capture a client that is not `Sendable`.
    /// - Returns: The model, or nil when the source answered ``FetchResult/notFound`` (now or
    ///   within ``ReadThroughOptions/notFoundLifetime``).
    /// - Throws: ``ModelStoreError/invalidPolicy(reason:)`` for bad options (before fetching);
    ///   the fetch's error when nothing usable is stored; ``ModelStoreError/fetchTimedOut(key:after:)``;
    ///   ``ModelStoreError/notModifiedWithoutRecord(key:)``; `CancellationError`;
    ///   ``ModelStoreError/readThroughTypeMismatch(key:requested:inFlight:)`` if a fetch for `key`
    ///   as another type is running; errors of reading and storing as ``object(forKey:)`` and
    ///   ``set(_:forKey:)``.
    @inlinable
    nonisolated(nonsending)
    public func object<Value: Codable & Sendable>(
        _ type: Value.Type,
        forKey key: String,
        options: ReadThroughOptions,
        fetch: sending @escaping (Entry<Value>?) async throws -> FetchResult<Value>
    ) async throws -> Value? {
        // The hit path is this shell and one synchronous call. Inlinable, so the caller's module
        // specialises it for its model type (an unspecialised generic async function allocates
        // its `Value?` on the task's allocator and looks up its metadata on every call), and
        // nonsending, so a hit does not hop to the global executor and back. A hit in the object
        // cache goes through a non-generic step, with the cast to `Value` done here, specialised:
        // the generic hit step cost a cached hit 46 % over object(_:forKey:), see PERFORMANCE.md.
        var probe = ReadThroughProbe()
        if Self.isObjectCacheable(type) {
            var cached: Value? = nil
            if try readThroughCachedHit(
                forKey: key, options: options, probe: &probe,
                take: { value in
                    cached = value as? Value
                    return cached != nil
                }), let cached = cached.take()
            {
                if probe.isAnswer { return cached }
                return try await readThroughAfterHit(
                    cached, type, forKey: key, options: options, requiresValue: false, in: nil, probe: probe,
                    fetch: fetch)
            }
        }
        let hit = try readThroughHit(type, forKey: key, options: options, requiresValue: false, in: nil, probe: &probe)
        if probe.isAnswer { return hit }
        return try await readThroughAfterHit(
            hit, type, forKey: key, options: options, requiresValue: false, in: nil, probe: probe, fetch: fetch)
    }

    /// The read-through the overloads returning a non-optional model share.
    ///
    /// - Parameter requiresValue: For callers whose fetch never answers `.notFound` (the
    ///   overload returning a non-optional model): remembered not-founds are ignored and a joined
    ///   fetch that answered `.notFound` makes the call read the store again, so it returns nil
    ///   never.
    func readThrough<Value: Codable & Sendable>(
        _ type: Value.Type,
        forKey key: String,
        options: ReadThroughOptions,
        requiresValue: Bool,
        in collection: Collection?,
        fetch: sending @escaping (Entry<Value>?) async throws -> FetchResult<Value>
    ) async throws -> Value? {
        var probe = ReadThroughProbe()
        let hit = try readThroughHit(
            type, forKey: key, options: options, requiresValue: requiresValue, in: collection, probe: &probe)
        if probe.isAnswer { return hit }
        return try await readThroughAfterHit(
            hit, type, forKey: key, options: options, requiresValue: requiresValue, in: collection, probe: probe,
            fetch: fetch)
    }

    /// Finishes a call the hit step did not answer: a refresh-ahead to start, or the miss path.
    /// `@concurrent`: what it reads, fetches and stores never runs on the caller's actor.
    @usableFromInline
    @concurrent
    func readThroughAfterHit<Value: Codable & Sendable>(
        _ hit: Value?, _ type: Value.Type, forKey key: String, options: ReadThroughOptions, requiresValue: Bool,
        in collection: Collection?, probe: ReadThroughProbe,
        fetch: sending @escaping (Entry<Value>?) async throws -> FetchResult<Value>
    ) async throws -> Value? {
        let database = try openDatabase()
        let space = try collection?.space ?? .default
        let metrics = collection?.readThroughMetrics ?? database.readThroughMetrics.storeMetrics
        var options = options
        // A collection's policy is the default lifetime of what its fetches store.
        if let collection { options.lifetime = try options.lifetime ?? collection.checked.lifetime }
        switch probe.step {
        case .hit, .notFound:
            return hit
        case .hitDueForRefresh:
            // The full entry (metadata included) only now: the refresh's fetch sends its validators.
            if let current = try readThroughEntry(type, forKey: key, now: probe.now, space: space), !current.isExpired {
                startRefreshAhead(
                    current, forKey: key, options: options, space: space, database: database, metrics: metrics,
                    fetch: fetch)
            }
            return hit
        case .miss:
            return try await readThroughMiss(
                type, forKey: key, options: options, requiresValue: requiresValue, space: space, metrics: metrics,
                ticket: probe.ticket, now: probe.now, fetch: fetch)
        }
    }

    /// Validates, reads a live record, or answers a remembered "not found", counting each; sets
    /// `probe` to what it found.
    ///
    /// Synchronous and building nothing generic (no box, closure, entry or type name until the
    /// call has to fetch; measured: they made a hit cost 3 µs more than a plain read).
    ///
    /// A hit takes no lock of the read-through's: a live record means no "not found" is
    /// remembered (every write forgets it), and a hit needs no ticket. On a miss the ticket is
    /// taken here, before the miss path reads the store again: if a fetch for this key stores
    /// its result after that read, the coalescer sees the ticket is old and sends the miss path
    /// back to read again instead of starting a second fetch.
    @usableFromInline
    func readThroughHit<Value: Decodable>(
        _ type: Value.Type, forKey key: String, options: ReadThroughOptions, requiresValue: Bool,
        in collection: Collection?, probe: inout ReadThroughProbe
    ) throws -> Value? {
        let database = try openDatabase()
        let space = try collection?.space ?? .default
        try Self.validate(key: key)
        try options.validate()
        // The collection's counters were looked up when it was made: no lock here.
        let metrics = collection?.readThroughMetrics ?? database.readThroughMetrics.storeMetrics
        // The clock is read only for a record with a deadline (see RecordReader.isExpired), and
        // on a miss: a live record without one is neither expired nor due for a refresh, and a
        // plain hit never looks at `probe.now`.
        var now = Double.nan
        var header: RecordHeader? = nil
        let found = try readThroughLiveValue(type, forKey: key, now: &now, space: space, in: database, header: &header)
        if now.isNaN { now = found == nil ? reader.now() : 0 }
        probe.now = now
        guard let value = found else {
            if !requiresValue, database.notFound.contains(key, in: space, now: now) {
                metrics.notFoundHits.increment()
                probe.step = .notFound
                return nil
            }
            probe.ticket = database.fetches.ticket()
            metrics.misses.increment()
            probe.step = .miss
            return nil
        }
        metrics.hits.increment()
        if let ratio = options.refreshAhead, let header, isDueForRefresh(header, ratio: ratio, now: now) {
            probe.step = .hitDueForRefresh
        } else {
            probe.step = .hit
        }
        return value
    }

    /// The miss path: fetches (or joins the fetch in flight), with the fail-safe and timeouts.
    private func readThroughMiss<Value: Codable & Sendable>(
        _ type: Value.Type, forKey key: String, options: ReadThroughOptions, requiresValue: Bool,
        space: KeySpace, metrics: ReadThroughMetrics, ticket firstTicket: UInt64, now firstNow: Double,
        fetch: sending @escaping (Entry<Value>?) async throws -> FetchResult<Value>
    ) async throws -> Value? {
        let database = try openDatabase()
        let coalescer = database.fetches
        var ticket = firstTicket
        var now = firstNow
        // An expired record is kept (not purged) until the fetch replaces it, so a failed
        // fetch leaves it for the fail-safe, and the fetch can send its validators.
        var current = try readThroughEntry(type, forKey: key, now: now, space: space)
        // What the fetch is given: the entry the caller that starts it read last.
        let previous = Locked<Entry<Value>?>(nil)
        // Boxed so the loop can offer it again after a recheck; only a pass that starts a
        // fetch takes it out.
        let pending = PendingFetch { try await fetch(previous.withLock { $0 }) }
        let store = storeStep(forKey: key, options: options, space: space, previous: previous)
        let typeName = String(describing: type)
        var firstPass = true
        while true {
            if !firstPass {
                ticket = coalescer.ticket()
                now = reader.now()
                current = try readThroughEntry(type, forKey: key, now: now, space: space)
            }
            firstPass = false
            // Stored since the hit step read the store (or since the last pass): no fetch needed.
            if let current, !current.isExpired { return current.value }
            previous.withLock { $0 = current }
            let stale = current.flatMap {
                Self.isUsableStale($0, staleIfError: options.staleIfError, now: now) ? $0 : nil
            }
            // Fail-safe throttle: a fetch for this record failed and served stale less than the
            // throttle ago; the backend is likely still down, so the stale record is the answer.
            if let stale, let throttle = options.failSafeThrottle,
                database.failSafe.isThrottled(key, in: space, now: now, throttle: throttle)
            {
                metrics.failSafeThrottled.increment()
                metrics.staleServed.increment()
                return stale.value
            }
            let wait = Self.timeout(options, hasStale: stale != nil)
            let outcome: FetchCoalescer.Outcome
            do {
                outcome = try await coalescer.value(
                    Optional<Value>.self, typeName: typeName, forKey: key, in: space, since: ticket,
                    timeout: wait.map {
                        FetchCoalescer.Timeout(clock: database.readThroughClock, duration: $0.duration)
                    },
                    fetch: pending, store: store, metrics: metrics)
            } catch {
                // A cancelled caller gets its CancellationError, never a stale record.
                if let stale, !(error is CancellationError), !Task.isCancelled {
                    if options.failSafeThrottle != nil {
                        database.failSafe.remember(key, in: space, failedAt: reader.now())
                    }
                    metrics.staleServed.increment()
                    return stale.value
                }
                throw error
            }
            switch outcome {
            case let .fetched(value):
                guard let typed = value as? Value? else {
                    // The coalescer matches types before joining; kept as a typed error, not a crash.
                    throw ModelStoreError.readThroughTypeMismatch(
                        key: key, requested: typeName, inFlight: String(describing: Swift.type(of: value)))
                }
                if typed == nil, requiresValue { continue }
                return typed
            case .recheck:
                continue
            case .timedOut:
                let (duration, isSoft) = wait ?? (.zero, false)
                (isSoft ? metrics.softTimeouts : metrics.hardTimeouts).increment()
                if let stale {
                    metrics.staleServed.increment()
                    return stale.value
                }
                throw ModelStoreError.fetchTimedOut(key: key, after: duration)
            }
        }
    }

    /// How the shared fetch's answer is stored; `previous` is what the fetch was given.
    private func storeStep<Value: Codable & Sendable>(
        forKey key: String, options: ReadThroughOptions, space: KeySpace, previous: Locked<Entry<Value>?>
    ) -> @Sendable (FetchResult<Value>) async throws -> Value? {
        { [self] result in
            try await storeFetchResult(
                result, forKey: key, options: options, space: space, previous: previous.withLock { $0 })
        }
    }

    /// Starts one background refresh of `key` unless a fetch for it is in flight; its failure is
    /// logged, never thrown, and leaves the record alone.
    private func startRefreshAhead<Value: Codable & Sendable>(
        _ current: Entry<Value>, forKey key: String, options: ReadThroughOptions, space: KeySpace,
        database: OpenDatabase, metrics: ReadThroughMetrics, fetch: sending @escaping (Entry<Value>?) async throws -> FetchResult<Value>
    ) {
        let previous = Locked<Entry<Value>?>(current)
        let started = database.fetches.startInBackground(
            Optional<Value>.self, typeName: String(describing: Value.self), forKey: key, in: space,
            fetch: PendingFetch { try await fetch(current) },
            store: storeStep(forKey: key, options: options, space: space, previous: previous),
            metrics: metrics,
            onFailure: { [logger = database.logger, path = database.path] error in
                logger.warning(
                    "Refresh-ahead fetch failed; the record is kept",
                    metadata: ["database": "\(path)", "key": "\(key)", "error": "\(error)"])
            })
        if started { metrics.refreshAheads.increment() }
    }

    /// Whether a live record is older than `ratio` of its lifetime.
    func isDueForRefresh(_ header: RecordHeader, ratio: Double, now: Double) -> Bool {
        guard let expiresAt = header.deadline(timeToLive: reader.timeToLive) else { return false }
        return now >= header.storedAt + ratio * (expiresAt - header.storedAt)
    }

    /// Whether an expired record may still be served: within `staleIfError` of its expiry.
    static func isUsableStale<Value>(_ entry: Entry<Value>, staleIfError: TimeInterval?, now: Double) -> Bool {
        guard let staleIfError, let expiresAt = entry.expiresAt?.timeIntervalSinceReferenceDate else { return false }
        return now <= expiresAt + staleIfError
    }

    /// How long a caller waits, and whether that is the soft timeout: soft applies only with a
    /// usable stale record; the shorter of the two wins, and is armed for at most
    /// ``TimeBounds/longestWait`` (a year: a clock cannot wait `Int64.max` seconds).
    static func timeout(_ options: ReadThroughOptions, hasStale: Bool) -> (duration: Duration, isSoft: Bool)? {
        let soft = hasStale ? options.softTimeout : nil
        let chosen: (duration: Duration, isSoft: Bool)
        switch (soft, options.hardTimeout) {
        case let (soft?, hard?): chosen = soft <= hard ? (soft, true) : (hard, false)
        case let (soft?, nil): chosen = (soft, true)
        case let (nil, hard?): chosen = (hard, false)
        case (nil, nil): return nil
        }
        return (TimeBounds.wait(chosen.duration), chosen.isSoft)
    }
}

/// What a read-through's hit step found, for the rest of the call. Usable from inlinable code:
/// the public read-through shells are inlined into the caller's module (see
/// ``ModelStore/object(_:forKey:options:fetch:)``).
@usableFromInline
struct ReadThroughProbe: Sendable {
    /// What the hit step found.
    @usableFromInline
    enum Step: Sendable { case hit, hitDueForRefresh, notFound, miss }

    @usableFromInline var step: Step
    /// The coalescer's ticket, taken on a miss before the miss path reads again.
    @usableFromInline var ticket: UInt64
    /// The time the hit step judged expiry by.
    @usableFromInline var now: Double

    @inlinable
    init() {
        step = .miss
        ticket = 0
        now = 0
    }

    /// Whether the hit step's value is the call's answer: a live record, or a remembered "not found".
    @inlinable
    var isAnswer: Bool {
        switch step {
        case .hit, .notFound: true
        case .hitDueForRefresh, .miss: false
        }
    }
}
