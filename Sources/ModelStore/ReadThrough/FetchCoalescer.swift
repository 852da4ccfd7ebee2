import CoreMetrics
import Tracing

/// Read-through fetches in flight, one per key, shared by every caller that misses that key.
///
/// The rules it keeps:
/// - **One fetch per miss.** Concurrent callers for one key join the fetch in flight. A
///   caller that read the store as a miss just before a fetch stored its result and left
///   the table would otherwise start a second fetch: callers take a ``ticket()`` (the count
///   of finished fetches) before they read the store, and a caller that finds no fetch in
///   flight but a newer count is told to read the store again (``Outcome/recheck``).
/// - **Cancellation.** A cancelled caller stops waiting at once and gets `CancellationError`;
///   the fetch goes on for the others and its result is stored. When the last waiter leaves,
///   the fetch's task is cancelled and leaves the table, so the next caller starts afresh;
///   a fetch cancelled that way stores nothing.
/// - **Timeouts.** A caller may bound its wait: when its timer fires it gets
///   ``Outcome/timedOut`` and the flight is marked *detached*: it is never cancelled, even when
///   its last waiter leaves, because a caller that timed out wants its result stored for later
///   reads. Background refreshes (``startInBackground(_:typeName:forKey:fetch:store:onFailure:)``)
///   are detached from the start.
/// - **Keys are bytes** (``ByteKey``), as LevelDB compares them: a fetch for "é" (U+00E9)
///   never answers a caller for "e\u{301}".
///
/// It knows nothing of options or storing: the caller passes the fetch and how to store its
/// result, so richer read-through calls can build on it.
final class FetchCoalescer: Sendable {
    /// What ``value(_:typeName:forKey:since:timeout:fetch:store:)`` produced.
    enum Outcome: Sendable {
        /// What the shared fetch's `store` step returned.
        case fetched(any Sendable)
        /// A fetch for this key finished after the caller's ticket: read the store again.
        case recheck
        /// The caller's timeout passed first; the fetch goes on and will store its result.
        case timedOut
    }

    /// A bound on one caller's wait.
    struct Timeout: Sendable {
        let clock: any ReadThroughClock
        let duration: Duration
    }

    private typealias Waiter = CheckedContinuation<Outcome, any Error>

    /// What a caller does after looking at the table.
    private enum Decision { case wait, start(UInt64), resume(Result<Outcome, any Error>) }

    private struct Flight {
        let id: UInt64
        let valueType: ObjectIdentifier
        let typeName: String
        /// Set just after the flight is registered; nil only for that moment.
        var task: Task<Void, Never>?
        var waiters: [UInt64: Waiter] = [:]
        /// Timers of waiters that bounded their wait, cancelled when the waiter resumes.
        var timers: [UInt64: Task<Void, Never>] = [:]
        /// Never cancelled: someone wants its result stored even with nobody waiting.
        var detached = false
    }

    private struct State {
        var flights: [ByteKey: Flight] = [:]
        /// Fetches that finished and stored a model, for ``ticket()``.
        var completions: UInt64 = 0
        var nextID: UInt64 = 0
    }

    private let state = Locked(State())

    /// The number of fetches that have stored a model so far; read it before reading the store.
    func ticket() -> UInt64 {
        state.withLock { $0.completions }
    }

    /// Waits for the fetch in flight for `key`, or starts one, unless a fetch finished since
    /// `ticket` was taken (then returns ``Outcome/recheck`` without fetching).
    ///
    /// - Parameters:
    ///   - type: What `store` returns; callers for one key must agree on it.
    ///   - typeName: The model type's name, for the mismatch error.
    ///   - timeout: Bounds this caller's wait (``Outcome/timedOut``); nil waits for the fetch.
    ///   - store: Stores the fetched result and returns what waiters get; runs in the fetch's
    ///     task before any waiter resumes.
    ///   - metrics: Where this caller's wait, and the fetch it starts, are counted (its collection's).
    /// - Throws: `CancellationError` if the caller's task is cancelled; the fetch's or the
    ///   store's error; ``ModelStoreError/readThroughTypeMismatch(key:requested:inFlight:)``
    ///   when the fetch in flight for `key` produces another type.
    func value<Fetched: Sendable, Value: Sendable>(
        _ type: Value.Type,
        typeName: String,
        forKey key: String,
        in space: KeySpace = .default,
        since ticket: UInt64,
        timeout: Timeout? = nil,
        fetch pending: PendingFetch<Fetched>,
        store: @escaping @Sendable (Fetched) async throws -> Value,
        metrics: ReadThroughMetrics? = nil
    ) async throws -> Outcome {
        let key = ByteKey(key, in: space)
        let waiterID = state.withLock { state -> UInt64 in
            state.nextID &+= 1
            return state.nextID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (waiter: Waiter) in
                join(
                    key: key, type: type, typeName: typeName, waiterID: waiterID, ticket: ticket, waiter: waiter,
                    timeout: timeout, pending: pending, store: store, metrics: metrics,
                    labels: FetchSpanLabels(key: key.string, collection: space.collection, typeName: typeName, background: false))
            }
        } onCancel: {
            leave(key: key, waiterID: waiterID)
        }
    }

    private func join<Fetched: Sendable, Value: Sendable>(
        key: ByteKey, type: Value.Type, typeName: String, waiterID: UInt64, ticket: UInt64, waiter: Waiter,
        timeout: Timeout?, pending: PendingFetch<Fetched>, store: @escaping @Sendable (Fetched) async throws -> Value,
        metrics: ReadThroughMetrics?, labels: FetchSpanLabels
    ) {
        let decision = state.withLock { state -> Decision in
            // Checked under the lock that `leave` takes: a cancellation either happened before
            // (seen here, nothing registered) or finds the registration and removes it.
            if Task.isCancelled { return .resume(.failure(CancellationError())) }
            if var flight = state.flights[key] {
                guard flight.valueType == ObjectIdentifier(type) else {
                    return .resume(.failure(ModelStoreError.readThroughTypeMismatch(
                        key: key.string, requested: typeName, inFlight: flight.typeName)))
                }
                flight.waiters[waiterID] = waiter
                state.flights[key] = flight
                return .wait
            }
            if state.completions != ticket { return .resume(.success(.recheck)) }
            state.nextID &+= 1
            let id = state.nextID
            state.flights[key] = Flight(
                id: id, valueType: ObjectIdentifier(type), typeName: typeName, waiters: [waiterID: waiter])
            return .start(id)
        }
        switch decision {
        case .wait:
            metrics?.coalescedWaits.increment()
            if let timeout { startTimer(timeout, key: key, waiterID: waiterID) }
        case let .resume(result):
            waiter.resume(with: result)
        case let .start(id):
            guard let fetch = pending.take() else {
                // A call starts at most one fetch (starting ends its loop), so this is a misuse.
                preconditionFailure("a read-through fetch closure was started twice")
            }
            metrics?.fetches.increment()
            let task = Task { [self] in
                await run(key: key, id: id, labels: labels, fetch: fetch, store: store, metrics: metrics, onFailure: nil)
            }
            let orphaned = state.withLock { state -> Bool in
                guard state.flights[key]?.id == id else { return true }  // every waiter already left
                state.flights[key]?.task = task
                return false
            }
            if orphaned {
                task.cancel()
            } else if let timeout {
                startTimer(timeout, key: key, waiterID: waiterID)
            }
        }
    }

    /// Starts a fetch that nobody waits for (a refresh-ahead), unless one is in flight for `key`.
    /// Callers that miss the key meanwhile join it. Returns whether it started one.
    ///
    /// - Parameters:
    ///   - metrics: Where the fetch and its failure are counted (its collection's).
    ///   - onFailure: Told the fetch's or the store's error (never a cancellation's).
    func startInBackground<Fetched: Sendable, Value: Sendable>(
        _ type: Value.Type,
        typeName: String,
        forKey key: String,
        in space: KeySpace = .default,
        fetch pending: PendingFetch<Fetched>,
        store: @escaping @Sendable (Fetched) async throws -> Value,
        metrics: ReadThroughMetrics? = nil,
        onFailure: @escaping @Sendable (any Error) -> Void
    ) -> Bool {
        let key = ByteKey(key, in: space)
        let id = state.withLock { state -> UInt64? in
            guard state.flights[key] == nil else { return nil }
            state.nextID &+= 1
            let id = state.nextID
            var flight = Flight(id: id, valueType: ObjectIdentifier(type), typeName: typeName)
            flight.detached = true
            state.flights[key] = flight
            return id
        }
        guard let id else { return false }
        guard let fetch = pending.take() else {
            preconditionFailure("a read-through fetch closure was started twice")
        }
        metrics?.fetches.increment()
        let labels = FetchSpanLabels(key: key.string, collection: space.collection, typeName: typeName, background: true)
        let task = Task { [self] in
            await run(key: key, id: id, labels: labels, fetch: fetch, store: store, metrics: metrics, onFailure: onFailure)
        }
        state.withLock { state in
            if state.flights[key]?.id == id { state.flights[key]?.task = task }
        }
        return true
    }

    /// The fetch's task: fetches (inside a `ModelStore.fetch` span, see ``FetchSpanLabels``),
    /// stores, then hands the result to every waiter.
    private func run<Fetched: Sendable, Value: Sendable>(
        key: ByteKey, id: UInt64, labels: FetchSpanLabels, fetch: () async throws -> Fetched,
        store: (Fetched) async throws -> Value,
        metrics: ReadThroughMetrics?, onFailure: (@Sendable (any Error) -> Void)?
    ) async {
        var stored = false
        let result: Result<Outcome, any Error>
        do {
            let fetched = try await withSpan(FetchSpanLabels.operationName, ofKind: .client) { span in
                labels.describe(span)
                return try await fetch()
            }
            // Cancelled means nobody waits any more, and a newer fetch may already be running:
            // storing this model could overwrite a fresher one.
            try Task.checkCancellation()
            let value = try await store(fetched)
            stored = true
            result = .success(.fetched(value))
        } catch {
            result = .failure(error)
            if !(error is CancellationError) {
                metrics?.fetchFailures.increment()
                onFailure?(error)
            }
        }
        let (waiters, timers) = state.withLock { state -> ([Waiter], [Task<Void, Never>]) in
            if stored { state.completions &+= 1 }
            guard let flight = state.flights[key], flight.id == id else { return ([], []) }
            state.flights[key] = nil
            return (Array(flight.waiters.values), Array(flight.timers.values))
        }
        for timer in timers { timer.cancel() }
        for waiter in waiters { waiter.resume(with: result) }
    }

    // MARK: - Leaving early

    /// Starts the timer that ends one waiter's wait with ``Outcome/timedOut``.
    private func startTimer(_ timeout: Timeout, key: ByteKey, waiterID: UInt64) {
        let timer = Task { [self] in
            do {
                try await timeout.clock.sleep(for: timeout.duration)
            } catch {
                return  // the waiter resumed (or left) first
            }
            expire(key: key, waiterID: waiterID)
        }
        let registered = state.withLock { state -> Bool in
            guard state.flights[key]?.waiters[waiterID] != nil else { return false }
            state.flights[key]?.timers[waiterID] = timer
            return true
        }
        if !registered { timer.cancel() }
    }

    /// A waiter's timeout passed: it stops waiting, and the fetch is detached so it goes on.
    private func expire(key: ByteKey, waiterID: UInt64) {
        let waiter = state.withLock { state -> Waiter? in
            guard var flight = state.flights[key], let waiter = flight.waiters.removeValue(forKey: waiterID) else {
                return nil
            }
            flight.timers[waiterID] = nil
            flight.detached = true
            state.flights[key] = flight
            return waiter
        }
        waiter?.resume(returning: .timedOut)
    }

    /// A waiter's task was cancelled: it stops waiting; the last one to leave cancels the fetch,
    /// unless the fetch is detached.
    private func leave(key: ByteKey, waiterID: UInt64) {
        let (waiter, timer, orphan) = state.withLock { state -> (Waiter?, Task<Void, Never>?, Task<Void, Never>?) in
            guard var flight = state.flights[key], let waiter = flight.waiters.removeValue(forKey: waiterID) else {
                return (nil, nil, nil)
            }
            let timer = flight.timers.removeValue(forKey: waiterID)
            if flight.waiters.isEmpty, !flight.detached {
                state.flights[key] = nil
                return (waiter, timer, flight.task)
            }
            state.flights[key] = flight
            return (waiter, timer, nil)
        }
        timer?.cancel()
        waiter?.resume(throwing: CancellationError())
        orphan?.cancel()
    }

    /// The number of fetches in flight, for tests.
    var inFlight: Int {
        state.withLock { $0.flights.count }
    }

    /// The number of callers waiting on fetches in flight, for tests.
    var waiters: Int {
        state.withLock { $0.flights.values.reduce(0) { $0 + $1.waiters.count } }
    }
}

/// A fetch closure that is handed on at most once, to the task that runs it.
final class PendingFetch<Value>: @unchecked Sendable {
    // @unchecked: `fetch` is read and cleared once, under `lock`; the caller sent it to us
    // (`sending`), so no one else holds it.
    private let lock = Lock()
    private var fetch: (() async throws -> Value)?

    init(_ fetch: sending @escaping () async throws -> Value) {
        self.fetch = fetch
    }

    func take() -> (() async throws -> Value)? {
        lock.withLock {
            defer { fetch = nil }
            return fetch
        }
    }
}
