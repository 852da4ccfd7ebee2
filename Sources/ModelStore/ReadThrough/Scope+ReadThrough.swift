import CoreMetrics
import Foundation
import Logging

// MARK: - The read-through's bodies
//
// Every read-through call of a store or a collection ends here, in its scope: the hit step
// (synchronous, through the one record lookup or the object cache), then on a miss the shared
// fetch, the fail-safe, timeouts and refresh-ahead, and the store step through the write funnel.

extension Scope {
    /// The read-through shell every public face calls: the hit path is this and one synchronous
    /// call. Inlinable, so the caller's module specialises it for its model type (an
    /// unspecialised generic async function allocates its `Value?` on the task's allocator and
    /// looks up its metadata on every call), and nonsending, so a hit does not hop to the global
    /// executor and back. A hit in the object cache goes through a non-generic step, with the model
    /// taken as a `Value` here, specialised (PERFORMANCE.md, "Read-through hits").
    @inlinable
    nonisolated(nonsending)
    func readThrough<Value: Codable & Sendable>(
        _ type: Value.Type, forKey key: String, options: ReadThroughOptions,
        fetch: sending @escaping (ModelStore.Entry<Value>?) async throws -> FetchResult<Value>
    ) async throws -> Value? {
        var probe = ReadThroughProbe()
        if ModelStore.isObjectCacheable(type) {
            var cached: Value? = nil
            if try readThroughCachedHit(
                forKey: key, options: options, probe: &probe,
                take: { model in
                    cached = model.model(of: Value.self)
                    return cached != nil
                }), let cached = cached.take()
            {
                if probe.isAnswer { return cached }
                return try await readThroughAfterHit(
                    cached, type, forKey: key, options: options, requiresValue: false, probe: probe, fetch: fetch)
            }
        }
        let hit = try readThroughHit(type, forKey: key, options: options, requiresValue: false, probe: &probe)
        if probe.isAnswer { return hit }
        return try await readThroughAfterHit(
            hit, type, forKey: key, options: options, requiresValue: false, probe: probe, fetch: fetch)
    }

    /// The read-through with a fetch that always answers a model (the overloads returning a
    /// non-optional one), with `lifetime` and `staleIfError` as options.
    func readThrough<Value: Codable & Sendable>(
        _ type: Value.Type, forKey key: String, lifetime: TimeInterval?, staleIfError: Bool,
        fetch: sending @escaping () async throws -> Value
    ) async throws -> Value {
        if let lifetime { try UpdatePolicy.validate(lifetime: lifetime, what: "record lifetime") }
        var options = ReadThroughOptions()
        options.lifetime = lifetime
        options.staleIfError = staleIfError ? .infinity : nil
        let value = try await readThrough(
            type, forKey: key, options: options, requiresValue: true, fetch: { _ in .value(try await fetch()) })
        guard let value else {
            // `requiresValue` reads again rather than return nil; kept as a typed error, not a crash.
            throw ModelStoreError.readThroughTypeMismatch(
                key: key, requested: String(describing: type), inFlight: "a fetch that answered notFound")
        }
        return value
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
        fetch: sending @escaping (ModelStore.Entry<Value>?) async throws -> FetchResult<Value>
    ) async throws -> Value? {
        var probe = ReadThroughProbe()
        let hit = try readThroughHit(
            type, forKey: key, options: options, requiresValue: requiresValue, probe: &probe)
        if probe.isAnswer { return hit }
        return try await readThroughAfterHit(
            hit, type, forKey: key, options: options, requiresValue: requiresValue, probe: probe, fetch: fetch)
    }

    /// Finishes a call the hit step did not answer: a refresh-ahead to start, or the miss path.
    /// `@concurrent`: what it reads, fetches and stores never runs on the caller's actor.
    @usableFromInline
    @concurrent
    func readThroughAfterHit<Value: Codable & Sendable>(
        _ hit: Value?, _ type: Value.Type, forKey key: String, options: ReadThroughOptions, requiresValue: Bool,
        probe: ReadThroughProbe,
        fetch: sending @escaping (ModelStore.Entry<Value>?) async throws -> FetchResult<Value>
    ) async throws -> Value? {
        let database = try open()
        var options = options
        // A collection's policy is the default lifetime of what its fetches store.
        options.lifetime = options.lifetime ?? lifetime
        switch probe.step {
        case .hit, .notFound:
            return hit
        case .hitDueForRefresh:
            // The full entry (metadata included) only now: the refresh's fetch sends its validators.
            if let current = try readThroughEntry(type, forKey: key, now: probe.now), !current.isExpired {
                startRefreshAhead(current, forKey: key, options: options, database: database, fetch: fetch)
            }
            return hit
        case .miss:
            return try await readThroughMiss(
                type, forKey: key, options: options, requiresValue: requiresValue, ticket: probe.ticket,
                now: probe.now, fetch: fetch)
        }
    }

    /// Validates, reads a live record, or answers a remembered "not found", counting each; sets
    /// `probe` to what it found.
    ///
    /// Synchronous and building nothing generic (no box, closure, entry or type name until the
    /// call has to fetch): each of those is paid on every hit (PERFORMANCE.md, "Read-through hits").
    ///
    /// A hit takes no lock of the read-through's: a live record means no "not found" is
    /// remembered (every write forgets it), and a hit needs no ticket. On a miss the ticket is
    /// taken here, before the miss path reads the store again: if a fetch for this key stores
    /// its result after that read, the coalescer sees the ticket is old and sends the miss path
    /// back to read again instead of starting a second fetch.
    @usableFromInline
    func readThroughHit<Value: Decodable>(
        _ type: Value.Type, forKey key: String, options: ReadThroughOptions, requiresValue: Bool,
        probe: inout ReadThroughProbe
    ) throws -> Value? {
        let database = try open()
        try ModelStore.validate(key: key)
        try options.validate()
        // The clock is read only for a record with a deadline (see RecordReader.isExpired), and
        // on a miss: a live record without one is neither expired nor due for a refresh, and a
        // plain hit never looks at `probe.now`.
        var now = Double.nan
        var header: RecordHeader? = nil
        let found: Value?
        if database.sharedTier != nil, SharedTierDatabase.isInTask {
            // A local miss does not ask the shared tier here, on Swift's cooperative pool: the
            // miss path asks it on a Dispatch thread while this task is suspended (issue 37).
            found = try SharedTierDatabase.deferringTier {
                try readThroughLiveValue(type, forKey: key, now: &now, header: &header)
            }
        } else {
            found = try readThroughLiveValue(type, forKey: key, now: &now, header: &header)
        }
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
        } else if let tier = database.sharedTier, tier.takeUnconfirmed(key, in: space) {
            // A doubted record the shared tier knew nothing of: served, and refreshed from the
            // source in the background with its validators (the RunningAFleet article).
            probe.step = .hitDueForRefresh
        } else {
            probe.step = .hit
        }
        return value
    }

    /// ``readThroughEntry(_:forKey:now:)`` for the miss path: with a shared tier, on a Dispatch
    /// thread, since a local miss asks the tier (hiredis's calls block: never on the cooperative
    /// pool, and the task is suspended meanwhile rather than holding a pool thread).
    private func readThroughEntryAskingTier<Value: Decodable & Sendable>(
        _ type: Value.Type, forKey key: String, now: Double
    ) async throws -> ModelStore.Entry<Value>? {
        guard try open().sharedTier != nil else { return try readThroughEntry(type, forKey: key, now: now) }
        return try await offload(waitingOnTier: true) { [self] in try readThroughEntry(type, forKey: key, now: now) }
    }

    /// ``readThroughEntryAskingTier(_:forKey:now:)``, and, when it finds no record at all (so
    /// the miss path goes on to the fleet's turn, with no stale record and so the hard timeout),
    /// the first attempt at the fetch lock in the same hand-off (one hand-off per fetch less).
    private func readThroughEntryTakingTurn<Value: Decodable & Sendable>(
        _ type: Value.Type, forKey key: String, now: Double, options: ReadThroughOptions
    ) async throws -> (ModelStore.Entry<Value>?, SharedTierFetchLock?) {
        guard let tier = try open().sharedTier else { return (try readThroughEntry(type, forKey: key, now: now), nil) }
        let timeout = Self.timeout(options, hasStale: false)?.duration
        return try await offload(waitingOnTier: true) { [self] in
            let entry = try readThroughEntry(type, forKey: key, now: now)
            guard entry == nil else { return (entry, nil) }
            return (nil, fleetLockAttempt(forKey: key, tier: tier, timeout: timeout))
        }
    }

    /// The miss path: fetches (or joins the fetch in flight), with the fail-safe and timeouts.
    private func readThroughMiss<Value: Codable & Sendable>(
        _ type: Value.Type, forKey key: String, options: ReadThroughOptions, requiresValue: Bool,
        ticket firstTicket: UInt64, now firstNow: Double,
        fetch: sending @escaping (ModelStore.Entry<Value>?) async throws -> FetchResult<Value>
    ) async throws -> Value? {
        let database = try open()
        let coalescer = database.fetches
        var ticket = firstTicket
        var now = firstNow
        // An expired record is kept (not purged) until the fetch replaces it, so a failed
        // fetch leaves it for the fail-safe, and the fetch can send its validators.
        // With a shared tier and no local record at all, the first turn for the fleet's fetch
        // lock is taken in the same hand-off as the lookup that missed (SharedTier/Scope+FleetFetch.swift).
        var (current, firstTurn) = try await readThroughEntryTakingTurn(type, forKey: key, now: now, options: options)
        // What the fetch is given: the entry the caller that starts it read last.
        let previous = Locked<ModelStore.Entry<Value>?>(nil)
        // Boxed so the loop can offer it again after a recheck; only a pass that starts a
        // fetch takes it out.
        let pending = PendingFetch { try await fetch(previous.withLock { $0 }) }
        let store = storeStep(forKey: key, options: options, previous: previous)
        let typeName = String(describing: type)
        var firstPass = true
        var fleetTurns = 0
        while true {
            if !firstPass {
                ticket = coalescer.ticket()
                now = reader.now()
                current = try await readThroughEntryAskingTier(type, forKey: key, now: now)
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
            // A fleet fetches once: this process's turn in the shared tier, if there is one
            // (`SharedTier/Scope+FleetFetch.swift`); a record another process stored is read again.
            var fleetLock: SharedTierFetchLock? = nil
            if let tier = database.sharedTier, fleetTurns < 2 {
                fleetTurns += 1
                let first = firstTurn
                firstTurn = nil
                switch try await fleetTurn(forKey: key, tier: tier, timeout: wait?.duration, first: first) {
                case .landed: continue
                case .fetch(let lock): fleetLock = lock
                }
            }
            let heldLock = fleetLock
            // Given up once the fetch stored its result (or failed): the record is in the tier by then.
            defer { if let heldLock, let tier = database.sharedTier { releaseFleetTurn(heldLock, tier: tier) } }
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
        forKey key: String, options: ReadThroughOptions, previous: Locked<ModelStore.Entry<Value>?>
    ) -> @Sendable (FetchResult<Value>) async throws -> Value? {
        { [self] result in
            try await storeFetchResult(result, forKey: key, options: options, previous: previous.withLock { $0 })
        }
    }

    /// Starts one background refresh of `key` unless a fetch for it is in flight; its failure is
    /// logged, never thrown, and leaves the record alone.
    private func startRefreshAhead<Value: Codable & Sendable>(
        _ current: ModelStore.Entry<Value>, forKey key: String, options: ReadThroughOptions, database: OpenDatabase,
        fetch: sending @escaping (ModelStore.Entry<Value>?) async throws -> FetchResult<Value>
    ) {
        let previous = Locked<ModelStore.Entry<Value>?>(current)
        let started = database.fetches.startInBackground(
            Optional<Value>.self, typeName: String(describing: Value.self), forKey: key, in: space,
            fetch: PendingFetch { try await fetch(current) },
            store: storeStep(forKey: key, options: options, previous: previous),
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
    static func isUsableStale<Value>(_ entry: ModelStore.Entry<Value>, staleIfError: TimeInterval?, now: Double) -> Bool {
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
