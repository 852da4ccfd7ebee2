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
/// - **Keys are bytes** (``ByteKey``), as LevelDB compares them: a fetch for "é" (U+00E9)
///   never answers a caller for "e\u{301}".
///
/// It knows nothing of options or storing: the caller passes the fetch and how to store its
/// result, so richer read-through calls can build on it.
final class FetchCoalescer: Sendable {
    /// What ``value(_:forKey:since:fetch:store:)`` produced.
    enum Outcome: Sendable {
        /// The shared fetch's model.
        case fetched(any Sendable)
        /// A fetch for this key finished after the caller's ticket: read the store again.
        case recheck
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
    ///   - store: Stores the fetched model; runs in the fetch's task before any waiter resumes.
    /// - Throws: `CancellationError` if the caller's task is cancelled; the fetch's or the
    ///   store's error; ``ModelStoreError/readThroughTypeMismatch(key:requested:inFlight:)``
    ///   when the fetch in flight for `key` produces another type.
    func value<Value: Sendable>(
        _ type: Value.Type,
        forKey key: String,
        in space: KeySpace = .default,
        since ticket: UInt64,
        fetch pending: PendingFetch<Value>,
        store: @escaping @Sendable (Value) throws -> Void
    ) async throws -> Outcome {
        let key = ByteKey(key, in: space)
        let waiterID = state.withLock { state -> UInt64 in
            state.nextID &+= 1
            return state.nextID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (waiter: Waiter) in
                join(
                    key: key, type: type, waiterID: waiterID, ticket: ticket, waiter: waiter, pending: pending,
                    store: store)
            }
        } onCancel: {
            leave(key: key, waiterID: waiterID)
        }
    }

    private func join<Value: Sendable>(
        key: ByteKey, type: Value.Type, waiterID: UInt64, ticket: UInt64, waiter: Waiter,
        pending: PendingFetch<Value>, store: @escaping @Sendable (Value) throws -> Void
    ) {
        let decision = state.withLock { state -> Decision in
            // Checked under the lock that `leave` takes: a cancellation either happened before
            // (seen here, nothing registered) or finds the registration and removes it.
            if Task.isCancelled { return .resume(.failure(CancellationError())) }
            if var flight = state.flights[key] {
                guard flight.valueType == ObjectIdentifier(type) else {
                    return .resume(.failure(ModelStoreError.readThroughTypeMismatch(
                        key: key.string, requested: String(describing: type), inFlight: flight.typeName)))
                }
                flight.waiters[waiterID] = waiter
                state.flights[key] = flight
                return .wait
            }
            if state.completions != ticket { return .resume(.success(.recheck)) }
            state.nextID &+= 1
            let id = state.nextID
            state.flights[key] = Flight(
                id: id, valueType: ObjectIdentifier(type), typeName: String(describing: type),
                waiters: [waiterID: waiter])
            return .start(id)
        }
        switch decision {
        case .wait:
            return
        case let .resume(result):
            waiter.resume(with: result)
        case let .start(id):
            guard let fetch = pending.take() else {
                // A call starts at most one fetch (starting ends its loop), so this is a misuse.
                preconditionFailure("a read-through fetch closure was started twice")
            }
            let task = Task { [self] in
                await run(key: key, id: id, fetch: fetch, store: store)
            }
            let orphaned = state.withLock { state -> Bool in
                guard state.flights[key]?.id == id else { return true }  // every waiter already left
                state.flights[key]?.task = task
                return false
            }
            if orphaned { task.cancel() }
        }
    }

    /// The fetch's task: fetches, stores, then hands the result to every waiter.
    private func run<Value: Sendable>(
        key: ByteKey, id: UInt64, fetch: () async throws -> Value, store: (Value) throws -> Void
    ) async {
        var stored = false
        let result: Result<Outcome, any Error>
        do {
            let value = try await fetch()
            // Cancelled means nobody waits any more, and a newer fetch may already be running:
            // storing this model could overwrite a fresher one.
            try Task.checkCancellation()
            try store(value)
            stored = true
            result = .success(.fetched(value))
        } catch {
            result = .failure(error)
        }
        let waiters = state.withLock { state -> [Waiter] in
            if stored { state.completions &+= 1 }
            guard let flight = state.flights[key], flight.id == id else { return [] }
            state.flights[key] = nil
            return Array(flight.waiters.values)
        }
        for waiter in waiters { waiter.resume(with: result) }
    }

    /// A waiter's task was cancelled: it stops waiting; the last one to leave cancels the fetch.
    private func leave(key: ByteKey, waiterID: UInt64) {
        let (waiter, orphan) = state.withLock { state -> (Waiter?, Task<Void, Never>?) in
            guard var flight = state.flights[key], let waiter = flight.waiters.removeValue(forKey: waiterID) else {
                return (nil, nil)
            }
            if flight.waiters.isEmpty {
                state.flights[key] = nil
                return (waiter, flight.task)
            }
            state.flights[key] = flight
            return (waiter, nil)
        }
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
