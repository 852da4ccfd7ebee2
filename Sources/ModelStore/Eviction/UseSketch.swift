import Foundation
internal import CModelStoreAtomics

/// How often each key was used recently, in a fixed amount of memory: a count-min sketch of
/// four rows of one-byte counters, each counting to 15, halved after 26 additions per record
/// the database holds (TinyLFU's frequency sketch, with conservative update).
///
/// A key's count is the smallest of its four counters, so collisions only ever raise it. Counters
/// are read and written with relaxed atomic byte operations and no lock: two threads that add at
/// once may lose one addition, which costs a little accuracy and nothing else. A key whose
/// counters are all at 15 (a hot key) reads them and writes nothing, so hot reads from many
/// threads do not pass a cache line back and forth.
///
/// The store's uses reach the counters through ``UseBuffer``: a use appends its key's hash to
/// the calling thread's stripe, and the counters take a stripe's 128 uses in one go, in order,
/// with their cache lines prefetched a few ahead. Counting each use at once touched four
/// counters at random places in the sketch (up to 8 MiB) on the reader's thread: a LevelDB read
/// hit with limits took 4 to 9 % more time than without for 0.7 % more instructions; through
/// the buffer, 1 to 2 % (PERFORMANCE.md, "Eviction by use"). Eviction drains every stripe before
/// it ranks, so on one thread it ranks by exactly the counts that counting at once gives.
final class UseSketch: @unchecked Sendable {
    // @unchecked: the counters are only touched through the atomic byte operations; the halving
    // runs under `halving`, and racing additions at worst lose an increment.

    /// The largest count: four bits' worth, as TinyLFU keeps.
    static let maximumCount: UInt8 = 15
    static let rows = 4
    /// Additions per record held between two halvings. TinyLFU halves after ten times the
    /// cache's size; ten cost up to a point of miss ratio here at a 1 % budget, because the
    /// sketch also counts the writes of misses. Slower forgetting keeps more of a flat (Zipf 0.8)
    /// popularity, faster follows a shifting one: with windows of 32, 25 left Zipf 0.8 at 1 %
    /// 0.97 points behind the best simulated algorithm, 27 the shifting trace at 10 % 0.93
    /// behind; 26 keeps every trace within 0.88 (PERFORMANCE.md, "Eviction by use").
    static let periodFactor = 26

    /// Counters per row, a power of two.
    let width: Int
    private let mask: UInt64
    private let counters: UnsafeMutablePointer<UInt8>
    /// Additions since the last halving.
    private let additions = AtomicWord()
    /// Additions after which every counter is halved: ``periodFactor`` per record the database
    /// holds, set by the limits after each eviction.
    private let period: AtomicWord
    var halvingPeriod: UInt64 { period.load() }
    private let halving = Lock()
    /// Uses not yet added to the counters.
    let buffer = UseBuffer(stripes: UseBuffer.defaultStripes(processors: ProcessInfo.processInfo.activeProcessorCount))

    /// The memory the sketch holds, in bytes.
    var byteCount: Int { width * Self.rows }

    /// A sketch for about `capacity` records (a cache of that many): the width is the power of
    /// two at or above it, within 2^10 and 2^21 counters per row (4 KiB to 8 MiB in all).
    init(capacity: Int) {
        var width = 1 << 10
        while width < capacity && width < 1 << 21 { width <<= 1 }
        self.width = width
        mask = UInt64(width - 1)
        counters = .allocate(capacity: width * Self.rows)
        counters.initialize(repeating: 0, count: width * Self.rows)
        period = AtomicWord(UInt64(width) * 10)
    }

    /// Sets the halving period for a database of `records` records (at least 1,024 additions).
    func adjustPeriod(records: Int) {
        period.store(UInt64(max(1_024, records * UseSketch.periodFactor)))
    }

    deinit {
        counters.deallocate()
        buffer.deallocate()
    }

    /// Counts one use of the key whose hash is `hash` now, past the buffers (the model test's
    /// reference; the store's uses go through ``Counts/recordUse(_:)``).
    func recordUse(_ hash: UInt64) {
        if counts.add(hash) { didAdd(1) }
    }

    /// What a use touches, as plain pointers: the read paths reach it through
    /// ``OpenDatabase/useCounts`` and count a use without retaining the sketch or the limits'
    /// enforcer (a retain and a release were 40 of the 282 instructions counting first added to
    /// an object-cache hit: PERFORMANCE.md, "Eviction by use"). Valid while the sketch lives: the
    /// database's enforcer keeps it as long as the database.
    struct Counts: @unchecked Sendable {
        // @unchecked: the counters and the buffers are only touched through atomic operations.
        let counters: UnsafeMutablePointer<UInt8>
        let width: Int
        let mask: UInt64
        let buffer: UseBuffer
        unowned(unsafe) let sketch: UseSketch

        @inline(__always)
        fileprivate func slot(_ hash: UInt64, row: Int) -> Int {
            // Double hashing: the low and high halves of the hash make four independent-enough indexes.
            let low = hash & 0xFFFF_FFFF
            let high = (hash >> 32) | 1
            return row * width + Int((low &+ UInt64(row) &* high) & mask)
        }

        /// Counts one use of the key whose hash is `hash`: into the calling thread's stripe of
        /// the buffers, which the thread drains into the counters once it holds
        /// ``UseBuffer/capacity`` uses (the eviction walk drains them all before it ranks).
        @inline(__always)
        func recordUse(_ hash: UInt64) {
            let stripe = buffer.stripeOfThisThread
            if UseBuffer.append(hash, to: stripe) { sketch.drain(stripe) }
        }

        /// Counts one use of the key whose hash is `hash`, found in the object cache: a key whose
        /// counters are all at ``UseSketch/maximumCount`` (what an object-cache hit mostly is: the
        /// cache keeps what is read often) costs four loads and no store, as before the buffers
        /// (through them, an object-cache hit cost 1.04x 55e769f's instead of 1.00); any other
        /// goes through the buffers as ``recordUse(_:)``. The uses still in the buffers can only
        /// add to a key's counters, so the one skipped here would have added nothing, unless the
        /// drain of those uses halves the sketch first: then this use is lost, as a racing one is.
        @inline(__always)
        func recordUseFromCache(_ hash: UInt64) {
            let minimum = min(
                min(modelstore_relaxed_load_byte(counters + slot(hash, row: 0)),
                    modelstore_relaxed_load_byte(counters + slot(hash, row: 1))),
                min(modelstore_relaxed_load_byte(counters + slot(hash, row: 2)),
                    modelstore_relaxed_load_byte(counters + slot(hash, row: 3))))
            if minimum < UseSketch.maximumCount { recordUse(hash) }
        }

        /// Adds one use of `hash` to the counters; false if it added nothing (the key's counters
        /// were all at ``UseSketch/maximumCount``: a hot key costs four loads and no store).
        @inline(__always)
        fileprivate func add(_ hash: UInt64) -> Bool {
            let slots = (slot(hash, row: 0), slot(hash, row: 1), slot(hash, row: 2), slot(hash, row: 3))
            let values = (
                modelstore_relaxed_load_byte(counters + slots.0), modelstore_relaxed_load_byte(counters + slots.1),
                modelstore_relaxed_load_byte(counters + slots.2), modelstore_relaxed_load_byte(counters + slots.3)
            )
            let minimum = min(min(values.0, values.1), min(values.2, values.3))
            guard minimum < UseSketch.maximumCount else { return false }
            // Conservative update: only the counters at the minimum grow; the others already
            // over-count this key because of other keys.
            if values.0 == minimum { modelstore_relaxed_store_byte(counters + slots.0, minimum + 1) }
            if values.1 == minimum { modelstore_relaxed_store_byte(counters + slots.1, minimum + 1) }
            if values.2 == minimum { modelstore_relaxed_store_byte(counters + slots.2, minimum + 1) }
            if values.3 == minimum { modelstore_relaxed_store_byte(counters + slots.3, minimum + 1) }
            return true
        }

        /// Asks for the cache lines of `hash`'s counters, so that a drain's misses overlap.
        @inline(__always)
        fileprivate func prefetch(_ hash: UInt64) {
            modelstore_prefetch_for_write(counters + slot(hash, row: 0))
            modelstore_prefetch_for_write(counters + slot(hash, row: 1))
            modelstore_prefetch_for_write(counters + slot(hash, row: 2))
            modelstore_prefetch_for_write(counters + slot(hash, row: 3))
        }
    }

    /// The sketch's ``Counts``.
    var counts: Counts { Counts(counters: counters, width: width, mask: mask, buffer: buffer, sketch: self) }

    /// Adds the uses waiting in `stripe` to the counters, in the order they were made (so that a
    /// single thread's counts are what counting each use at once gives, halvings included), the
    /// counters of the use eight ahead prefetched. Does nothing if another thread is draining it.
    @inline(never)
    func drain(_ stripe: UnsafeMutablePointer<UInt64>) {
        let counts = counts
        _ = UseBuffer.drain(stripe) { slots, from, to in
            let last = UInt64(UseBuffer.capacity - 1)
            let ahead: UInt64 = 8
            var index = from
            while index != to && index &- from < ahead {
                counts.prefetch(UseBuffer.slot(slots, index & last))
                index &+= 1
            }
            // Additions left before the next halving: checked per use, so that the halving falls
            // between the same two uses as when each is counted at once.
            var left = Int(halvingPeriod) - Int(additions.load())
            var added = 0
            index = from
            while index != to {
                if to &- index > ahead { counts.prefetch(UseBuffer.slot(slots, (index &+ ahead) & last)) }
                if counts.add(UseBuffer.slot(slots, index & last)) {
                    added += 1
                    if added >= left {
                        didAdd(added)
                        added = 0
                        left = Int(halvingPeriod) - Int(additions.load())
                    }
                }
                index &+= 1
            }
            if added > 0 { didAdd(added) }
        }
    }

    /// Drains every stripe of the buffers: the eviction walk, before it ranks records by their
    /// counts.
    func drainAll() {
        for index in 0..<buffer.stripeCount {
            let stripe = buffer.stripe(index)
            if UseBuffer.hasPending(stripe) { drain(stripe) }
        }
    }

    /// After `count` additions: halves every counter once a period's additions were made.
    private func didAdd(_ count: Int) {
        if additions.add(UInt64(count)) + UInt64(count) >= halvingPeriod { halve() }
    }

    /// The key's recent uses: 0 to ``maximumCount``.
    @inline(__always)
    func count(_ hash: UInt64) -> UInt8 {
        let counts = counts
        var minimum = Self.maximumCount
        for row in 0..<Self.rows {
            minimum = min(minimum, modelstore_relaxed_load_byte(counters + counts.slot(hash, row: row)))
        }
        return minimum
    }

    /// Halves every counter, so a use counts half as much after each period: how the sketch
    /// forgets what was popular once and is no longer used.
    private func halve() {
        halving.withLock {
            let period = halvingPeriod
            guard additions.load() >= period else { return }  // another thread just halved
            let all = width * Self.rows
            for index in 0..<all {
                let value = modelstore_relaxed_load_byte(counters + index)
                if value > 0 { modelstore_relaxed_store_byte(counters + index, value >> 1) }
            }
            additions.subtract(period)
        }
    }
}
