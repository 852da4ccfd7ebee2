import Foundation
import Synchronization

/// What one run of `threads` threads did.
struct ThreadRun {
    /// Wall nanoseconds from the moment all threads were released to the last one's end.
    var wallNanoseconds: UInt64
    /// CPU nanoseconds the threads themselves used (each thread's own clock), summed.
    var cpuNanoseconds: UInt64
}

/// Runs `body(thread)` on `count` POSIX threads (Foundation `Thread`s, not Swift tasks: the
/// bodies block in LevelDB) released together once all have started, and waits for all.
func runOnThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) -> ThreadRun {
    let ready = DispatchGroup()
    let done = DispatchGroup()
    let start = DispatchSemaphore(value: 0)
    let cpu = Locked<UInt64>(0)
    for thread in 0..<count {
        ready.enter()
        done.enter()
        let worker = Thread {
            ready.leave()
            start.wait()
            let before = threadCPUNanoseconds()
            body(thread)
            let used = threadCPUNanoseconds() - before
            cpu.withLock { $0 += used }
            done.leave()
        }
        worker.stackSize = 4 << 20
        worker.start()
    }
    ready.wait()
    let begin = monotonicNanoseconds()
    for _ in 0..<count { start.signal() }
    done.wait()
    let end = monotonicNanoseconds()
    return ThreadRun(wallNanoseconds: end - begin, cpuNanoseconds: cpu.withLock { $0 })
}

/// Starts `body` on a thread of its own and returns at once; `finished` is left when it ends.
func startThread(_ finished: DispatchGroup, _ body: @escaping @Sendable () -> Void) {
    finished.enter()
    let worker = Thread {
        body()
        finished.leave()
    }
    worker.stackSize = 4 << 20
    worker.start()
}

/// CLOCK_MONOTONIC in nanoseconds.
@inline(__always)
func monotonicNanoseconds() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
}

/// The calling thread's CPU time in nanoseconds.
func threadCPUNanoseconds() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
}

/// Nanoseconds the calling thread has spent runnable but waiting for a CPU (the second field
/// of Linux's /proc/thread-self/schedstat); nil elsewhere.
func threadRunDelay() -> UInt64? {
    guard let text = try? String(contentsOfFile: "/proc/thread-self/schedstat", encoding: .utf8) else { return nil }
    let fields = text.split(separator: " ")
    return fields.count >= 2 ? UInt64(fields[1]) : nil
}

/// Sets the calling thread's nice value (Linux keeps one per thread; `who` 0 is the caller).
func setThreadNice(_ value: Int) {
    #if os(Linux)
    _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, Int32(value))
    #else
    _ = setpriority(PRIO_PROCESS, 0, Int32(value))
    #endif
}

/// A flag threads poll to stop.
final class StopFlag: Sendable {
    private let value = Atomic<Bool>(false)

    var isSet: Bool { value.load(ordering: .relaxed) }

    func set() { value.store(true, ordering: .relaxed) }
}

/// Hands a value that is not `Sendable` to other threads. Only for values the benchmark uses
/// in a thread-safe way (LevelDB's C handle is: reads and writes from many threads).
struct UncheckedSendable<Value>: @unchecked Sendable {
    let value: Value
}

/// A value behind a lock, shareable by reference between threads (outside the measured loops).
final class Locked<Value>: @unchecked Sendable {
    // @unchecked: every access to `value` holds `lock`.
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
