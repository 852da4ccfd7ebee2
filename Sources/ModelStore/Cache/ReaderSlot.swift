#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A small number of the calling thread's own, for spreading readers over counters that each sit
/// on a cache line of their own (``ObjectCache``'s readers' counters).
///
/// Threads are numbered in the order they first ask, so two threads get different numbers
/// (modulo the counters' count) whatever their thread ids are: hashing `pthread_self()` put two
/// threads on one counter in some runs and not in others. The number is kept in a thread-specific
/// value, read in a few nanoseconds.
struct ReaderSlot: Sendable {
    /// The one numbering of the process: a copy is kept by each cache, so that a hit reads the
    /// key from memory it already holds (a static read is a `swift_once` call each time).
    static let numbering = ReaderSlot()

    /// The key of the thread-specific value: the thread's number plus one (nil: not numbered yet).
    private let key: pthread_key_t
    /// The next number to hand out.
    private let next = AtomicWord()

    private init() {
        var key = pthread_key_t()
        let result = pthread_key_create(&key, nil)
        precondition(result == 0, "pthread_key_create failed: \(result)")
        self.key = key
    }

    /// The calling thread's number (0, 1, 2, … in the order threads first asked).
    @inline(__always)
    var current: Int {
        if let value = pthread_getspecific(key) { return Int(bitPattern: value) &- 1 }
        return numberThisThread()
    }

    private func numberThisThread() -> Int {
        let number = Int(truncatingIfNeeded: next.add(1))
        pthread_setspecific(key, UnsafeRawPointer(bitPattern: number &+ 1))
        return number
    }
}
