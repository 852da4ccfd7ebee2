internal import CModelStoreAtomics

/// Uses on their way into a ``UseSketch``: a few striped rings of key hashes, each stripe used by
/// the threads whose `pthread_self()` picks it, so that a read hit costs three stores and a load
/// into one cache line its thread already holds, instead of four counters at random places in a
/// sketch of up to 8 MiB (the misses a read paid: PERFORMANCE.md, "Eviction by use").
///
/// Lossy by design, as the counts it feeds are approximate: the threads that share a stripe write
/// its ring with plain (relaxed) loads and stores and no lock, so two uses at the same instant may
/// land in one slot and one is lost; a stripe that fills while another thread drains it
/// overwrites its oldest uses. A stripe is drained by the thread that fills it, and every stripe
/// by the eviction walk before it ranks a window (so the counts it reads include every use that
/// reached the buffers), never by a LevelDB write.
///
/// Layout: per stripe one cache line of header (writes, reads, the drain's flag) and then
/// ``capacity`` hashes. Not `Sendable` on its own: ``UseSketch`` owns the memory.
struct UseBuffer {
    /// Hashes per stripe, a power of two: enough that a drain (one function call, a flag's
    /// compare-and-swap and the additions' atomic add) is a small share per use, and few enough
    /// that the buffers of 64 stripes hold 64 KiB.
    static let capacity = 128
    /// The header's words: a cache line, so that the hashes start on a line of their own.
    static let headerWords = 8
    static let stride = headerWords + capacity
    private static let writes = 0, reads = 1, draining = 2

    let base: UnsafeMutablePointer<UInt64>
    let stripeCount: Int
    private let stripeMask: UInt64

    /// Buffers of `stripes` stripes (a power of two).
    init(stripes: Int) {
        precondition(stripes > 0 && stripes & (stripes - 1) == 0)
        stripeCount = stripes
        stripeMask = UInt64(stripes - 1)
        let words = stripes * Self.stride
        base = UnsafeMutableRawPointer.allocate(byteCount: words * 8, alignment: 64)
            .bindMemory(to: UInt64.self, capacity: words)
        base.initialize(repeating: 0, count: words)
    }

    /// Four stripes per processor (fewer threads share one), a power of two within 4...64.
    static func defaultStripes(processors: Int) -> Int {
        var stripes = 4
        while stripes < 4 * processors && stripes < 64 { stripes <<= 1 }
        return stripes
    }

    /// The memory the buffers hold, in bytes.
    var byteCount: Int { stripeCount * Self.stride * 8 }

    func deallocate() {
        UnsafeMutableRawPointer(base).deallocate()
    }

    /// The stripe the calling thread writes.
    @inline(__always)
    var stripeOfThisThread: UnsafeMutablePointer<UInt64> {
        base + Int(modelstore_thread_stripe() & stripeMask) * Self.stride
    }

    /// The stripe at `index`.
    @inline(__always)
    func stripe(_ index: Int) -> UnsafeMutablePointer<UInt64> { base + index * Self.stride }

    /// Appends `hash` to `stripe`; true when the stripe holds ``capacity`` uses not yet drained
    /// (the caller drains it).
    @inline(__always)
    static func append(_ hash: UInt64, to stripe: UnsafeMutablePointer<UInt64>) -> Bool {
        let written = modelstore_relaxed_load(stripe + writes)
        modelstore_relaxed_store(stripe + headerWords + Int(written & UInt64(capacity - 1)), hash)
        // Release: a drain that sees the count sees the hash (on x86-64, a plain store).
        modelstore_release_store(stripe + writes, written &+ 1)
        return written &+ 1 &- modelstore_relaxed_load(stripe + reads) >= UInt64(capacity)
    }

    /// Calls `body` with the slots of `stripe`'s uses not yet drained, oldest first (the last
    /// ``capacity`` at most: older ones were overwritten), and marks them drained. Returns false,
    /// calling nothing, while another thread drains the stripe: it takes the same uses.
    @inline(__always)
    static func drain(_ stripe: UnsafeMutablePointer<UInt64>, _ body: (_ slots: UnsafePointer<UInt64>, _ from: UInt64, _ to: UInt64) -> Void) -> Bool {
        guard modelstore_atomic_compare_exchange(stripe + draining, 0, 1) else { return false }
        let written = modelstore_acquire_load(stripe + writes)
        var from = modelstore_relaxed_load(stripe + reads)
        if written &- from > UInt64(capacity) { from = written &- UInt64(capacity) }
        if from != written { body(UnsafePointer(stripe + headerWords), from, written) }
        modelstore_relaxed_store(stripe + reads, written)
        modelstore_atomic_store(stripe + draining, 0)
        return true
    }

    /// The hash in slot `index` of a stripe's `slots`, read as atomically as appends write it
    /// (another thread sharing the stripe may be appending while it is drained).
    @inline(__always)
    static func slot(_ slots: UnsafePointer<UInt64>, _ index: UInt64) -> UInt64 {
        modelstore_relaxed_load(slots + Int(index))
    }

    /// Whether `stripe` holds uses not yet drained (a racy look, for skipping empty stripes).
    @inline(__always)
    static func hasPending(_ stripe: UnsafeMutablePointer<UInt64>) -> Bool {
        modelstore_relaxed_load(stripe + writes) != modelstore_relaxed_load(stripe + reads)
    }
}
