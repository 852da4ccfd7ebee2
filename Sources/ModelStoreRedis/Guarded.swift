#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A value guarded by a lock (ModelStore's own `Locked` is internal to the core).
///
/// A `pthread_mutex_t` of its own rather than an `NSLock`: a Redis hit through the tier takes
/// several of these locks, and `NSLock`'s calls through Foundation, with the run-time
/// exclusivity check of every access to the value, cost about twice the mutex itself (issue 37).
/// (`Synchronization.Mutex` would do, but it needs macOS 15.) The mutex lives in its own
/// allocation so its address never moves.
final class Guarded<Value>: @unchecked Sendable {
    // @unchecked: `value` is only touched while `mutex` is held.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    // Unchecked: every access holds the mutex, so the run-time exclusivity check (a call into
    // the Swift runtime on every access) would only repeat what the mutex guarantees.
    @exclusivity(unchecked) private var value: Value

    init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        let result = pthread_mutex_init(mutex, nil)
        precondition(result == 0, "pthread_mutex_init failed: \(result)")
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    @inline(__always)
    func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
