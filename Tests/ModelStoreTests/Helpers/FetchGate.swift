import Foundation

/// A read-through fetch the test drives by hand, without sleeping: ``pass(_:)`` reports that
/// it started and waits until ``open()``; if its task is cancelled first it reports that and
/// throws `CancellationError`.
final class FetchGate: @unchecked Sendable {
    // @unchecked: mutable state is guarded by `lock`; the streams are thread-safe.
    private let lock = NSLock()
    private var isOpen = false
    private var waiting: [Int: CheckedContinuation<Void, any Error>] = [:]
    private var nextID = 0
    private var callCount = 0
    private let (startedStream, started) = AsyncStream.makeStream(of: Void.self)
    private let (cancelledStream, cancelled) = AsyncStream.makeStream(of: Void.self)

    /// How many times ``pass(_:)`` was called.
    var calls: Int {
        lock.lock(); defer { lock.unlock() }
        return callCount
    }

    /// The fetch: returns `value` once the gate is open.
    func pass<Value>(_ value: Value) async throws -> Value {
        let id: Int = {
            lock.lock(); defer { lock.unlock() }
            callCount += 1
            nextID += 1
            return nextID
        }()
        started.yield()
        do {
            try await waitForOpen(id)
        } catch {
            cancelled.yield()
            throw error
        }
        return value
    }

    private func waitForOpen(_ id: Int) async throws {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                lock.lock()
                if isOpen {
                    lock.unlock()
                    continuation.resume()
                } else if Task.isCancelled {
                    lock.unlock()
                    continuation.resume(throwing: CancellationError())
                } else {
                    waiting[id] = continuation
                    lock.unlock()
                }
            }
        } onCancel: {
            lock.lock()
            let continuation = waiting.removeValue(forKey: id)
            lock.unlock()
            continuation?.resume(throwing: CancellationError())
        }
    }

    /// Lets every fetch waiting at the gate, and every later one, return.
    func open() {
        lock.lock()
        isOpen = true
        let continuations = Array(waiting.values)
        waiting.removeAll()
        lock.unlock()
        for continuation in continuations { continuation.resume() }
    }

    /// Returns once a fetch has started (one call per started fetch).
    func waitUntilStarted() async {
        var iterator = startedStream.makeAsyncIterator()
        _ = await iterator.next()
    }

    /// Returns once a fetch has seen its task cancelled.
    func waitUntilCancelled() async {
        var iterator = cancelledStream.makeAsyncIterator()
        _ = await iterator.next()
    }
}

/// Runs `body` in a task of its own and returns its result, or nil if it has not finished
/// within `limit`, so a caller that waits forever fails its test instead of hanging the run.
/// (Real time only as a bound: a passing test never waits for it. Two minutes, as `eventually`:
/// a loaded 2-core machine kept tasks waiting for a thread for more than 10 seconds.)
func within<T: Sendable>(
    _ limit: Duration = .seconds(120), _ body: @escaping @Sendable () async throws -> T
) async -> Result<T, any Error>? {
    let once = ResumeOnce<Result<T, any Error>?>()
    return await withCheckedContinuation { continuation in
        once.set(continuation)
        let work = Task {
            let result: Result<T, any Error>
            do { result = .success(try await body()) } catch { result = .failure(error) }
            once.resume(result)
        }
        Task {
            try? await Task.sleep(for: limit)
            once.resume(nil)
            work.cancel()
        }
    }
}

/// A continuation resumed by whichever of several tasks gets there first.
final class ResumeOnce<Value: Sendable>: @unchecked Sendable {
    // @unchecked: `continuation` is set and taken under `lock`.
    private let lock = NSLock()
    private var continuation: CheckedContinuation<Value, Never>?

    func set(_ continuation: CheckedContinuation<Value, Never>) {
        lock.lock(); defer { lock.unlock() }
        self.continuation = continuation
    }

    func resume(_ value: Value) {
        lock.lock()
        let continuation = self.continuation
        self.continuation = nil
        lock.unlock()
        continuation?.resume(returning: value)
    }
}
