#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A mutual-exclusion lock over `pthread_mutex_t`.
///
/// `Synchronization.Mutex` would do, but it needs macOS 15; ModelStore supports older Apple
/// systems. The mutex lives in its own allocation so its address never moves.
final class Lock: @unchecked Sendable {
    // @unchecked: the pthread mutex is the synchronisation primitive itself.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        let result = pthread_mutex_init(mutex, nil)
        precondition(result == 0, "pthread_mutex_init failed: \(result)")
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` while holding the lock.
    @inline(__always)
    func withLock<Result, Failure: Error>(_ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}

/// A value protected by a ``Lock``.
final class Locked<Value>: @unchecked Sendable {
    // @unchecked: every access to `value` goes through `lock`.
    private let lock = Lock()
    // Unchecked: every access holds `lock`, so the run-time exclusivity check (a call into the
    // Swift runtime on every access) would only repeat what the lock guarantees.
    @exclusivity(unchecked) private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access to the value.
    @inline(__always)
    func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        try lock.withLock { () throws(Failure) -> Result in try body(&value) }
    }
}

/// A readers-writer lock over `pthread_rwlock_t`.
///
/// The engine uses it so that many threads can call into LevelDB at once while `close()`
/// waits for all of them to leave before it frees the C handles.
final class ReadWriteLock: @unchecked Sendable {
    // @unchecked: the pthread rwlock is the synchronisation primitive itself.
    private let rwlock: UnsafeMutablePointer<pthread_rwlock_t>

    init() {
        rwlock = .allocate(capacity: 1)
        rwlock.initialize(to: pthread_rwlock_t())
        let result = pthread_rwlock_init(rwlock, nil)
        precondition(result == 0, "pthread_rwlock_init failed: \(result)")
    }

    deinit {
        pthread_rwlock_destroy(rwlock)
        rwlock.deallocate()
    }

    /// Runs `body` while holding the lock shared with other readers.
    @inline(__always)
    func withReadLock<Result, Failure: Error>(_ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        pthread_rwlock_rdlock(rwlock)
        defer { pthread_rwlock_unlock(rwlock) }
        return try body()
    }

    /// Runs `body` while holding the lock exclusively.
    @inline(__always)
    func withWriteLock<Result, Failure: Error>(_ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        pthread_rwlock_wrlock(rwlock)
        defer { pthread_rwlock_unlock(rwlock) }
        return try body()
    }
}
