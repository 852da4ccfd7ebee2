import CModelStoreAtomics
import Tracing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Whether a tracer is in place, so the tier's Redis calls make spans: what a Redis hit asks
/// first, answered from a cached "no" for at most ``refresh`` (10 ms) at a time.
///
/// Asking swift-distributed-tracing itself (`InstrumentationSystem.instrument`: a task-local read,
/// then a readers-writer lock around the bootstrapped instrument, and an existential copy) cost
/// about 470 instructions per Redis hit, a sixth of the tier's own work on one (issue 37). The
/// library offers no cheap way to learn that `bootstrap` ran, so the cache trades freshness for
/// it, in one direction only:
///
/// - "No tracer" is kept for at most ``refresh``, then asked again: a tracer bootstrapped later
///   (at any time) has its spans from the calls that begin at most about 10 ms after it (plus the
///   coarse clock's tick, a few ms). A tier made after the bootstrap asks at its first call, so it
///   never misses one. A tracer bound to a task with `withTracer(_:_:)` while none is bootstrapped
///   is seen the same way: a call in such a scope within 10 ms of a "no" makes no span.
/// - "A tracer" is never cached: each call asks again, and `withSpan` looks the tracer up itself,
///   so a scope that ends, or a tracer taken out (tests only), is seen at once.
///
/// The cached deadline is one relaxed atomic word: racing threads at worst both ask the library.
final class TracingCheck: @unchecked Sendable {
    // @unchecked: the word is only touched through relaxed atomic loads and stores.
    private let askAgainAt: UnsafeMutablePointer<UInt64>

    /// How long a "no tracer" answer is kept.
    static let refresh: UInt64 = 10_000_000

    init() {
        askAgainAt = .allocate(capacity: 1)
        askAgainAt.initialize(to: 0)
    }

    deinit { askAgainAt.deallocate() }

    /// Whether spans are made now (see the type's notes for how fresh the answer is).
    var isTracing: Bool {
        let now = Self.coarseNanoseconds()
        if now < modelstore_relaxed_load(askAgainAt) { return false }
        let tracing = Self.isTracingNow
        modelstore_relaxed_store(askAgainAt, tracing ? 0 : now + Self.refresh)
        return tracing
    }

    /// Whether a tracer is bootstrapped (or bound for the current task), asked of the library.
    /// While no instrument is (the no-op one is in place), one load of it and a comparison of
    /// its type: `InstrumentationSystem.tracer` casts the instrument to a protocol each time.
    static var isTracingNow: Bool {
        let instrument = InstrumentationSystem.instrument
        if type(of: instrument) == NoOpInstrument.self || type(of: instrument) == NoOpTracer.self { return false }
        return !(InstrumentationSystem.tracer is NoOpTracer)
    }

    /// A monotonic clock of the kernel's tick's resolution (a few ms), read without a system call
    /// (CLOCK_MONOTONIC_COARSE from the vDSO; the approximate uptime clock on Apple's systems).
    private static func coarseNanoseconds() -> UInt64 {
        #if canImport(Darwin)
        return clock_gettime_nsec_np(CLOCK_UPTIME_RAW_APPROX)
        #else
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC_COARSE, &time)
        return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
        #endif
    }
}
