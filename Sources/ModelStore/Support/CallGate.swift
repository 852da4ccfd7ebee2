internal import CModelStoreAtomics

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Admits many short calls at once and lets one rare ``close()`` wait until none is inside:
/// what a read-write lock does for the engine's handle, without a shared write per call.
///
/// A read-write lock's shared acquisition writes the lock's one word twice per call, so two
/// threads calling at once hand that cache line back and forth on every call. Here a call
/// counts itself in one of ``slotCount`` counters, picked by its thread and each on cache lines
/// of its own, and then reads the closed flag, which only ``close()`` writes. ``close()`` sets
/// the flag, then waits until every counter is zero. All operations are sequentially
/// consistent, so either a call sees the flag (and turns back) or ``close()`` sees the call's
/// count (and waits for it): no call is ever inside after ``close()`` returns.
final class CallGate: @unchecked Sendable {
    // @unchecked: the words are only ever accessed through the atomic operations.

    /// Counters, enough that a few threads rarely share one (sharing only costs speed).
    static let slotCount = 16
    /// Words `0..<slotCount` are the counters, word `slotCount` the closed flag; each word
    /// alone in its ``AtomicWord/isolationBytes`` block.
    private let block: UnsafeMutableRawPointer

    init() {
        let stride = AtomicWord.isolationBytes
        block = .allocate(byteCount: (Self.slotCount + 1) * stride, alignment: stride)
        for index in 0...Self.slotCount {
            (block + index * stride).initializeMemory(as: UInt64.self, repeating: 0, count: 1)
        }
    }

    deinit {
        block.deallocate()
    }

    @inline(__always)
    private func word(_ index: Int) -> UnsafeMutablePointer<UInt64> {
        (block + index * AtomicWord.isolationBytes).assumingMemoryBound(to: UInt64.self)
    }

    /// Runs `body` as one call, or returns nil without running it once the gate is closed.
    @inline(__always)
    func withCall<Result>(_ body: () throws -> Result) rethrows -> Result? {
        let slot = word(Self.currentSlot())
        modelstore_atomic_fetch_add(slot, 1)
        defer { modelstore_atomic_fetch_sub(slot, 1) }
        guard modelstore_atomic_load(word(Self.slotCount)) == 0 else { return nil }
        return try body()
    }

    /// Whether ``close()`` has begun.
    var isClosed: Bool {
        modelstore_atomic_load(word(Self.slotCount)) != 0
    }

    /// Turns every later call back, then waits until the calls inside have left. Call it from
    /// outside any call (it would wait for itself).
    func close() {
        modelstore_atomic_store(word(Self.slotCount), 1)
        var rounds = 0
        while (0..<Self.slotCount).contains(where: { modelstore_atomic_load(word($0)) != 0 }) {
            // Calls are microseconds; a compaction can take seconds, so stop spinning soon.
            rounds += 1
            if rounds < 100 { sched_yield() } else { usleep(200) }
        }
    }

    /// The calling thread's counter: its thread identity, hashed.
    @inline(__always)
    private static func currentSlot() -> Int {
        #if canImport(Darwin)
        let identity = UInt(bitPattern: pthread_self())
        #else
        let identity = UInt(pthread_self())
        #endif
        // Thread identities are addresses of page-aligned thread structures: mix the high bits in.
        let mixed = UInt64(identity) &* 0x9E37_79B9_7F4A_7C15
        return Int(truncatingIfNeeded: mixed >> 60) & (slotCount - 1)
    }
}
