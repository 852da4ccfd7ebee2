import Foundation
import ModelStore

/// A read-through clock the test advances by hand: ``sleep(for:)`` suspends until
/// ``advance(by:)`` passes its deadline (or its task is cancelled), so timeouts are tested
/// without sleeping. (`ReadThroughClock` is a `package` protocol: the test-support target
/// belongs to ModelStore's package, so it conforms without `@testable`; hence `package` here.)
package final class ManualClock: ReadThroughClock, @unchecked Sendable {
    // @unchecked: all state is guarded by `lock`.
    private struct Sleeper {
        var deadline: Duration
        var continuation: CheckedContinuation<Void, any Error>
    }

    private let lock = NSLock()
    private var now: Duration = .zero
    private var sleepers: [Int: Sleeper] = [:]
    private var nextID = 0

    package init() {}

    /// How many sleeps are waiting for the clock.
    package var sleeperCount: Int {
        lock.lock(); defer { lock.unlock() }
        return sleepers.count
    }

    package func sleep(for duration: Duration) async throws {
        let id: Int = {
            lock.lock(); defer { lock.unlock() }
            nextID += 1
            return nextID
        }()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                lock.lock()
                if Task.isCancelled {
                    lock.unlock()
                    continuation.resume(throwing: CancellationError())
                } else if duration <= .zero {
                    lock.unlock()
                    continuation.resume()
                } else {
                    sleepers[id] = Sleeper(deadline: now + duration, continuation: continuation)
                    lock.unlock()
                }
            }
        } onCancel: {
            lock.lock()
            let sleeper = sleepers.removeValue(forKey: id)
            lock.unlock()
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves the clock on and wakes every sleep whose deadline has come.
    package func advance(by duration: Duration) {
        lock.lock()
        now += duration
        let due = sleepers.filter { $0.value.deadline <= now }
        for id in due.keys { sleepers[id] = nil }
        lock.unlock()
        for sleeper in due.values { sleeper.continuation.resume() }
    }
}
