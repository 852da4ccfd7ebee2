#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// MARK: - Who may touch a shard, and when
//
// Each shard of ``ObjectCache`` has a block of its own: its mutex, its writer flag and its box
// (unretained), then its readers' counters, each on lines of its own. A writer (``withShard``)
// takes the mutex, raises the flag and waits until no reader is counted; a reader
// (``readingShard``) counts itself and reads unless the flag is up, else reads under the mutex.
// ObjectCache.swift says why, and what each side sees of the other.

extension ObjectCache {
    /// How many readers' counters each shard has: threads past this many share counters (correct,
    /// only their hits share a line again).
    static let readerSlotCount = 8
    /// A mutex, the writer flag, then the shard's box (unretained), rounded up to whole 128-byte
    /// units (``AtomicWord/isolationBytes``); then one unit per reader counter.
    static let flagOffset = (MemoryLayout<pthread_mutex_t>.size + 7) & ~7
    static let boxOffset = flagOffset + MemoryLayout<UInt64>.size
    static let countersOffset: Int = {
        let size = boxOffset + MemoryLayout<Unmanaged<ShardBox>>.size
        let unit = AtomicWord.isolationBytes
        return (size + unit - 1) / unit * unit
    }()
    static let blockBytes = countersOffset + readerSlotCount * AtomicWord.isolationBytes

    /// Shard `number`'s mutex: writers hold it, and readers while a writer is under way.
    @inline(__always)
    func mutex(_ number: Int) -> UnsafeMutablePointer<pthread_mutex_t> {
        (blocks + number * Self.blockBytes).assumingMemoryBound(to: pthread_mutex_t.self)
    }

    /// Shard `number`'s box, unretained.
    @inline(__always)
    func box(_ number: Int) -> UnsafeMutablePointer<Unmanaged<ShardBox>> {
        (blocks + number * Self.blockBytes + Self.boxOffset).assumingMemoryBound(to: Unmanaged<ShardBox>.self)
    }

    /// Shard `number`'s writer flag: 1 while a thread changes the shard.
    @inline(__always)
    func writerFlag(_ number: Int) -> UnsafeMutablePointer<UInt64> {
        (blocks + number * Self.blockBytes + Self.flagOffset).assumingMemoryBound(to: UInt64.self)
    }

    /// Shard `number`'s readers' counter `slot`.
    @inline(__always)
    func readerCount(_ number: Int, _ slot: Int) -> UnsafeMutablePointer<UInt64> {
        (blocks + number * Self.blockBytes + Self.countersOffset + slot * AtomicWord.isolationBytes)
            .assumingMemoryBound(to: UInt64.self)
    }

    /// Runs `body` on shard `number`'s state as its only user: holding its mutex, its writer
    /// flag raised, once no reader is counted. The items `body` removed or replaced
    /// (``Shard/released``) are dropped after the shard is unlocked: a model's own code run by
    /// dropping it (a deinit) that used this shard would otherwise wait for the mutex its own
    /// thread holds.
    @inline(__always)
    func withShard<Result>(_ number: Int, _ body: (inout Shard) -> Result) -> Result {
        var released: [Item] = []
        let result = withLockedShard(number) { shard -> Result in
            let result = body(&shard)
            if !shard.released.isEmpty { swap(&released, &shard.released) }
            return result
        }
        // Unlocked: the models are dropped here.
        released.removeAll()
        return result
    }

    /// ``withShard(_:_:)`` without dropping what `body` released.
    @inline(__always)
    private func withLockedShard<Result>(_ number: Int, _ body: (inout Shard) -> Result) -> Result {
        let mutex = mutex(number)
        pthread_mutex_lock(mutex)
        let flag = writerFlag(number)
        RawAtomics.store(1, in: flag)
        waitForReaders(number)
        defer {
            RawAtomics.releasingStore(0, in: flag)
            pthread_mutex_unlock(mutex)
        }
        return box(number).pointee._withUnsafeGuaranteedRef { body(&$0.state) }
    }

    /// Runs `body` on shard `number`'s state to read it, beside other readers: counted in the
    /// calling thread's counter while no writer is under way, else under the mutex. `body` must
    /// only read the shard's state, changing nothing but referenced flags (``markReferenced(_:)``).
    /// It gets the box unretained (see ``ShardBox``).
    @inline(__always)
    func readingShard<Result>(_ number: Int, _ body: (ShardBox) -> Result) -> Result {
        let count = readerCount(number, readerSlots.current & (Self.readerSlotCount - 1))
        // One call of `body`, not one per path (the compiler may still make `body` a function of
        // its own: `withItem`, the hit's path, spells these steps out instead).
        let counted = beginReading(number, count: count)
        defer { endReading(number, count: count, counted: counted) }
        return box(number).pointee._withUnsafeGuaranteedRef(body)
    }

    /// Counts the calling thread as a reader of shard `number` in `count` and returns true, or,
    /// while a writer is under way, steps back, takes the mutex and returns false.
    @inline(__always)
    func beginReading(_ number: Int, count: UnsafeMutablePointer<UInt64>) -> Bool {
        RawAtomics.add(1, to: count)
        if RawAtomics.load(writerFlag(number)) == 0 { return true }
        RawAtomics.subtract(1, from: count)
        pthread_mutex_lock(mutex(number))
        return false
    }

    /// Ends what ``beginReading(_:count:)`` began.
    @inline(__always)
    func endReading(_ number: Int, count: UnsafeMutablePointer<UInt64>, counted: Bool) {
        if counted {
            RawAtomics.subtract(1, from: count)
        } else {
            pthread_mutex_unlock(mutex(number))
        }
    }

    /// Waits, as a writer with the flag raised, until shard `number` counts no reader. Readers
    /// hold a count for one hit's copy; one taken off its CPU mid-hit is waited for yielding.
    func waitForReaders(_ number: Int) {
        for slot in 0..<Self.readerSlotCount {
            let count = readerCount(number, slot)
            var spins = 0
            while RawAtomics.load(count) != 0 {
                spins += 1
                if spins > 64 { sched_yield() }
            }
        }
    }

    /// Sets a slot's referenced flag for a reader, which may run beside others: an atomic
    /// store, made only when the flag is clear, so repeated hits leave the line clean in other
    /// cores' caches. (The eviction sweep reads and clears it as a writer, alone.) After the
    /// reader's last read of the slots: a store the compiler cannot see the target of makes it
    /// retain what is read around it.
    @inline(__always)
    static func markReferenced(_ flag: UnsafeMutablePointer<UInt8>) {
        if RawAtomics.relaxedLoad(flag) == 0 { RawAtomics.relaxedStore(1, in: flag) }
    }
}
