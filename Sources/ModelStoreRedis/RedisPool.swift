import CoreMetrics
import Dispatch
import Foundation
import Logging
import ModelStore

/// A few connections to Redis shared by a tier's callers, with reconnection under backoff.
///
/// ``run(_:)`` blocks its caller for at most about the command timeout. hiredis's blocking calls
/// never run on Swift's cooperative pool: a caller on a thread of its own (a server's request
/// thread, a Dispatch queue, the publisher's queue) makes them itself, with no hand-off; a caller
/// in a task hands them to the pool's own threads and waits.
/// After a failed connect, calls fail at once (no connect is tried) until the backoff has passed:
/// 50 ms, doubling to at most 5 s; so while Redis is down, readers and writers pay nothing for it.
/// The tier's background threads end the backoff sooner (``endBackoff()``): the invalidation
/// reader when it reconnected, the publisher before each retry of what it owes. So callers never
/// wait out a backoff that outlived the outage by seconds.
final class RedisPool: Sendable {
    let endpoint: RedisEndpoint
    private let metrics: RedisTierMetrics
    private let logger: Logger
    /// What the log says of Redis being lost and back (shared with the invalidation reader).
    let health: RedisHealth
    private let permits: DispatchSemaphore
    /// The endpoint's command timeout, converted once.
    private let commandTimeout: DispatchTimeInterval
    /// Where a caller in a task has its calls made: threads of the pool's own, not a concurrent
    /// Dispatch queue, which on Linux shares its threads with Swift's cooperative pool. (An earlier
    /// try of these threads saw `FleetHistoryTests` seed 13005965860921027707 fail 2 runs of 5
    /// with stale reads after Redis restarts; with the background retries that end the backoff,
    /// it passed 5 of 5.)
    private let threads = BlockingThreads(name: "ModelStoreRedis.pool", limit: 16)
    private let state = Guarded(State())
    /// One idle connection outside the lock, taken first and given back first (ConnectionSlot.swift).
    private let spare = ConnectionSlot()

    private struct State {
        var idle: [RedisConnection] = []
        var failures = 0
        var retryAt: ContinuousClock.Instant? = nil
        var everConnected = false
    }

    /// The longest backoff between connection attempts of the tier's callers.
    static let longestBackoff: Duration = .seconds(5)
    /// The longest backoff of the tier's background threads (the invalidation reader, the
    /// publisher) between attempts to reach Redis again: they notice its return for everyone, and
    /// the fleet's promise after a restart (about 500 ms) leaves no room for more.
    static let longestBackgroundBackoff: Duration = .milliseconds(250)

    /// The wait after `failures` failed attempts in a row: 50 ms, doubling, at most `limit`.
    static func backoff(afterFailures failures: Int, limit: Duration = longestBackoff) -> Duration {
        min(limit, .milliseconds(50) * (1 << min(max(failures, 1) - 1, 10)))
    }

    init(endpoint: RedisEndpoint, size: Int, metrics: RedisTierMetrics, logger: Logger) {
        self.endpoint = endpoint
        self.metrics = metrics
        self.logger = logger
        health = RedisHealth(logger: logger, endpoint: "\(endpoint.host):\(endpoint.port)")
        permits = DispatchSemaphore(value: size)
        commandTimeout = .nanoseconds(Int(nanoseconds(endpoint.commandTimeout)))
    }

    /// Whether the last attempt to reach Redis failed and the backoff has not passed yet.
    var isBackingOff: Bool {
        state.withLock { state in state.retryAt.map { ContinuousClock.now < $0 } ?? false }
    }

    /// Runs `body` with a connection and waits for it: on the caller's thread when no task runs
    /// on it (so it is not a thread of Swift's cooperative pool), else on the pool's threads. A
    /// failure is counted (and the connection dropped if it broke), never thrown at the tier's callers.
    /// `body` does not escape: the call returns after it ran, wherever it ran (so a hit does not
    /// allocate a closure context for it).
    func run<Value: Sendable>(
        _ body: @Sendable (RedisConnection) throws -> Value
    ) -> Result<Value, RedisFailure> {
        // A thread hand-off and back costs about as much as a loopback round trip (issue 37).
        if !Self.isInTask { return perform(body) }
        return withoutActuallyEscaping(body) { body in
            let handOff = HandOff(body)
            let done = DispatchSemaphore(value: 0)
            threads.run { [self] in
                handOff.run(self)
                done.signal()
            }
            done.wait()
            return handOff.result!
        }
    }

    /// A call handed to the pool's threads, and its result. The body is dropped as soon as it ran,
    /// before the caller is woken: it is the caller's non-escaping closure.
    private final class HandOff<Value: Sendable>: @unchecked Sendable {
        // @unchecked: written on the pool's thread before the semaphore's signal, read by the
        // caller after its wait.
        private var body: (@Sendable (RedisConnection) throws -> Value)?
        var result: Result<Value, RedisFailure>?

        init(_ body: @escaping @Sendable (RedisConnection) throws -> Value) {
            self.body = body
        }

        func run(_ pool: RedisPool) {
            if let body { result = pool.perform(body) }
            body = nil
        }
    }

    /// Whether the calling thread runs a task: every thread of Swift's cooperative pool does while
    /// it runs code (a job is always a task's); a thread of the program's own, or Dispatch's, does not.
    static var isInTask: Bool {
        withUnsafeCurrentTask { task in
            guard case .some = task else { return false }
            return true
        }
    }

    /// ``run(_:)``'s body, on a thread that is not the cooperative pool's.
    fileprivate func perform<Value>(
        _ body: (RedisConnection) throws -> Value
    ) -> Result<Value, RedisFailure> {
        // A free permit is taken without reading the clock (a wait until "now" never blocks); only
        // a caller that must wait for one computes its deadline.
        guard permits.wait(timeout: DispatchTime(uptimeNanoseconds: 0)) == .success
            || permits.wait(timeout: DispatchTime.now() + commandTimeout) == .success
        else {
            metrics.errors.increment()
            health.busy()
            return .failure(RedisFailure(description: "every connection to Redis is busy", brokeConnection: false))
        }
        defer { permits.signal() }
        let connection: RedisConnection
        switch checkOut() {
        case .success(let checkedOut): connection = checkedOut
        case .failure(let failure): return .failure(failure)
        }
        do {
            let value = try body(connection)
            checkIn(connection)
            health.succeeded()
            return .success(value)
        } catch {
            let error = error as? RedisFailure ?? RedisFailure(description: "\(error)", brokeConnection: true)
            metrics.errors.increment()
            if connection.isBroken || error.brokeConnection {
                health.failed("a command (the connection is dropped)", error)
                state.withLock { $0.failures = max($0.failures, 1) }
            } else {
                checkIn(connection)
            }
            return .failure(error)
        }
    }

    private func checkOut() -> Result<RedisConnection, RedisFailure> {
        // The spare idle connection without the lock, or an idle one in one short hold of it:
        // what nearly every call finds.
        if let spare = spare.take() { return .success(spare) }
        if let idle = state.withLock({ $0.idle.popLast() }) { return .success(idle) }
        let reuse = state.withLock { state -> Result<RedisConnection?, RedisFailure> in
            if let connection = state.idle.popLast() { return .success(connection) }
            if let retryAt = state.retryAt, ContinuousClock.now < retryAt {
                return .failure(RedisFailure(description: "Redis is unreachable; backing off", brokeConnection: false))
            }
            return .success(nil)
        }
        switch reuse {
        case .failure(let failure):
            metrics.errors.increment()
            return .failure(failure)
        case .success(let connection?):
            return .success(connection)
        case .success(nil):
            break
        }
        do throws(RedisFailure) {
            let connection = try RedisConnection(endpoint)
            let reconnected = state.withLock { state -> Bool in
                defer {
                    state.failures = 0
                    state.retryAt = nil
                    state.everConnected = true
                }
                return state.everConnected && state.failures > 0
            }
            if reconnected { metrics.reconnects.increment() }
            return .success(connection)
        } catch {
            metrics.errors.increment()
            let backoff = state.withLock { state -> Duration in
                state.failures += 1
                let backoff = Self.backoff(afterFailures: state.failures)
                state.retryAt = ContinuousClock.now + backoff
                return backoff
            }
            health.failed("a connection (retrying in \(backoff))", error)
            return .failure(error)
        }
    }

    private func checkIn(_ connection: RedisConnection) {
        guard !connection.isBroken else { return }
        if spare.put(connection) { return }
        state.withLock { $0.idle.append(connection) }
    }

    /// Lets the next call try to connect at once: another connection reached Redis (the
    /// invalidation reader's), or the publisher retries what it owes on a backoff of its own. A
    /// connection that fails starts the callers' backoff again, where it left off.
    func endBackoff() {
        // The failures stay counted until a call connects (which counts the reconnection).
        state.withLock { $0.retryAt = nil }
    }

    /// Drops every idle connection (closing them).
    func closeIdle() {
        _ = spare.take()
        state.withLock { $0.idle.removeAll() }
    }
}

/// The nanoseconds of a positive duration, capped.
func nanoseconds(_ duration: Duration) -> Int64 {
    let (seconds, attoseconds) = duration.components
    guard seconds < 9_000_000_000 else { return Int64.max / 2 }
    return max(0, seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
}
