#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An in-memory cache of decoded models, shared by every store instance of one database.
///
/// A hit skips both LevelDB and the codec. Every write path invalidates the keys it touches,
/// and a read only inserts what it decoded if no write touched its shard since it started
/// reading (the `generation` check), so a slow reader can never put back a value a writer
/// replaced. Expiry is still checked on every hit from the stored header times. Keys are
/// compared by their bytes (``ByteKey``), as LevelDB compares them: canonically equivalent
/// spellings of a key are different records and different cache entries.
///
/// Built for hits from many threads at once (with one LRU list under one lock, two threads of
/// all-hit reads did half the work of one: PERFORMANCE.md, "Concurrency"):
/// - the keys are split over up to 32 shards by a hash of their bytes, each shard with its own
///   writers' lock, and each shard's lock and bookkeeping on cache lines of their own, so hits
///   on different shards share no memory that either writes; hits on one shard take no lock
///   (below), and retain nothing;
/// - recency is approximate (CLOCK, "second chance"): a hit sets its entry's referenced flag,
///   and only if it is clear, instead of moving the entry in a shared list; eviction sweeps a
///   shard's entries, clearing flags, and evicts the first entry not referenced since the
///   last sweep;
/// - the entry count is one atomic counter changed only by inserts and removals, never by hits,
///   so the limit holds for the whole cache (entries ≤ `limit`) however unevenly keys hash.
///   An insert past the limit first evicts one entry from the shard a shared rotating hand
///   points at, so stale entries in any shard age out.
///
/// Small caches (under 64 entries) use one shard: their eviction order is exactly CLOCK's.
///
/// Hits take no lock (with a lock per shard, two threads' hits wrote its word on every hit and
/// handed its line back and forth: PERFORMANCE.md, "Two threads' hits"). A shard's readers
/// count themselves in one of ``readerSlotCount`` counters, each on lines of its own, picked by
/// the thread (``ReaderSlot``); a thread that changes the shard takes its mutex, raises its
/// writer flag and waits until every counter is zero. A reader counts itself and then reads the
/// flag, a writer raises the flag and then reads the counts, all sequentially consistent: one
/// of the two sees the other, so a reader either sees no writer and reads while none can start,
/// or steps back and reads under the mutex. Readers change nothing of the shard but an entry's
/// referenced flag, with an atomic store.
final class ObjectCache: @unchecked Sendable {
    // @unchecked: each shard's state is changed only while holding that shard's mutex with its
    // writer flag raised and no reader counted, and read only under the mutex or counted as a
    // reader (above); the entry count and the eviction hand are atomic words. Values are only
    // cached for non-class model types (see `isCacheable`), so handing the same value to several
    // threads copies it.

    struct Item {
        /// The decoded model, in a box of its type.
        var value: CachedModel
        var header: RecordHeader
        var byteCount: Int
        /// The record's metadata section, so an entry served from the cache still has it.
        var metadata: StoredMetadata?
        /// The record's tags, so an entry served from the cache still has them.
        var tags: [String]
        /// The key's ``KeyHash``, computed once by ``ObjectCache/insert(_:in:_:ifGeneration:)``
        /// (on a miss) when the database counts uses, so that a hit counts its use for eviction
        /// without hashing the key again; 0 otherwise (nothing reads it then).
        var useHash: UInt64 = 0

        /// The item of `value`, a model decoded as `Model` (its static type is what a hit asks for).
        init<Model>(value: Model, header: RecordHeader, byteCount: Int, metadata: StoredMetadata?, tags: [String]) {
            self.value = CachedModel(value)
            self.header = header
            self.byteCount = byteCount
            self.metadata = metadata
            self.tags = tags
        }
    }

    let limit: Int
    let shardCount: Int
    /// `shardCount` blocks of ``blockBytes``: the shard's pthread mutex, its writer flag and its
    /// box, then its readers' counters, each on lines of its own.
    let blocks: UnsafeMutableRawPointer
    /// The shards' boxes, owned here; the blocks hold them unretained.
    private let boxes: [ShardBox]
    /// Entries in all shards, plus inserts that reserved room and have not yet inserted; never
    /// more than `limit`.
    private let entries = AtomicWord()
    /// Which shard the next eviction for room starts at.
    private let evictionHand = AtomicWord()

    /// At most this many shards: more than any two-socket server has cores to contend with.
    static let maximumShardCount = 32
    /// Each shard holds about this many entries at least, so that per-shard eviction order
    /// stays close to the whole cache's.
    static let minimumEntriesPerShard = 32

    /// Whether inserts hash their keys for eviction's use counts: only when the database counts
    /// uses, so a store without limits pays nothing for them on a miss.
    private let hashesKeys: Bool
    /// Which readers' counter the calling thread counts itself in.
    let readerSlots = ReaderSlot.numbering

    init(limit: Int, hashesKeys: Bool = false) {
        precondition(limit > 0)
        self.limit = limit
        self.hashesKeys = hashesKeys
        var count = 1
        while count * 2 <= Self.maximumShardCount, count * 2 * Self.minimumEntriesPerShard <= limit { count *= 2 }
        shardCount = count
        blocks = .allocate(byteCount: count * Self.blockBytes, alignment: AtomicWord.isolationBytes)
        boxes = (0..<count).map { _ in ShardBox() }
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        defer { pthread_mutexattr_destroy(&attributes) }
        #if canImport(Glibc)
        // Spins a little before sleeping: a shard is held for well under a microsecond, so two
        // threads that meet on one shard are better off waiting than paying a futex sleep and
        // wake-up (measured: two threads' hits 108 -> 101 ns of wall time per hit; PERFORMANCE.md).
        pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_ADAPTIVE_NP))
        #endif
        for number in 0..<count {
            let mutex = mutex(number)
            mutex.initialize(to: pthread_mutex_t())
            let result = pthread_mutex_init(mutex, &attributes)
            precondition(result == 0, "pthread_mutex_init failed: \(result)")
            writerFlag(number).initialize(to: 0)
            for slot in 0..<Self.readerSlotCount { readerCount(number, slot).initialize(to: 0) }
            box(number).initialize(to: Unmanaged.passUnretained(boxes[number]))
        }
    }

    deinit {
        for number in 0..<shardCount {
            pthread_mutex_destroy(mutex(number))
        }
        blocks.deallocate()
    }

    /// Whether models of this type may be cached: classes are not, because one shared
    /// instance would be visible to every reader at once.
    static func isCacheable<Value>(_ type: Value.Type) -> Bool {
        ModelStore.isObjectCacheable(type)
    }

    /// The write generation of `key`'s shard, read before a LevelDB read whose result may be
    /// inserted with ``insert(_:in:_:ifGeneration:)``.
    func generation(of key: String, in space: KeySpace = .default) -> UInt64 {
        let number = shardNumber(ByteKey(key, in: space))
        return readingShard(number) { $0.state.generation }
    }

    /// Calls `body` with the header, the model and the key's ``KeyHash`` cached for `key`, read
    /// in place as a reader of its shard, and marks the entry read; does nothing if there is
    /// none. A hit copies only what it takes (``lookup(_:in:)`` copies the whole item: the model,
    /// metadata, tags and header), and retains nothing: the model's box is handed over
    /// unretained, valid while `body` runs (the slot holds it, and no writer can start).
    @inline(__always)
    func withItem(
        _ key: String, in space: KeySpace = .default,
        _ body: (RecordHeader, UnretainedCachedModel, _ useHash: UInt64) -> Void
    ) {
        let key = ByteKey(key, in: space)
        let number = shardNumber(key)
        // Spelled out rather than through `readingShard`, whose closure the compiler made a
        // function of its own with two calls of it: this way `body` is called once, in here.
        let count = readerCount(number, readerSlots.current & (Self.readerSlotCount - 1))
        let counted = beginReading(number, count: count)
        defer { endReading(number, count: count, counted: counted) }
        // What `body` gets is copied out first, and `body` runs after the shard's state was last
        // touched: a call to an unknown closure while reading it in place made the compiler
        // retain the slots' storage around the call.
        let found = box(number).pointee._withUnsafeGuaranteedRef { box -> (RecordHeader, UnretainedCachedModel, UInt64)? in
            guard let slot = box.state.index[key] else { return nil }
            // Through a buffer pointer, whose subscript addresses the slot (the array's copied it).
            let found = box.state.slots.withUnsafeBufferPointer { slots in
                (slots[slot].item.header, UnretainedCachedModel(slots[slot].item.value), slots[slot].item.useHash)
            }
            Self.markReferenced(box.state.referenced + slot)
            return found
        }
        // Still counted as a reader: no writer can drop the model's box meanwhile.
        if let (header, model, useHash) = found { body(header, model, useHash) }
    }

    /// A copy of the item cached for `key`, read as a reader of its shard, marking the entry
    /// read; nil if there is none.
    func lookup(_ key: String, in space: KeySpace = .default) -> Item? {
        let key = ByteKey(key, in: space)
        return readingShard(shardNumber(key)) { box in
            guard let slot = box.state.index[key] else { return nil }
            let item = box.state.slots[slot].item
            Self.markReferenced(box.state.referenced + slot)
            return item
        }
    }

    /// Inserts a decoded value unless a write touched its shard after `generation` was read.
    func insert(_ key: String, in space: KeySpace = .default, _ item: Item, ifGeneration expected: UInt64) {
        var item = item
        if hashesKeys { item.useHash = KeyHash.key(key, in: space) }
        let key = ByteKey(key, in: space)
        let number = shardNumber(key)
        // A few tries: an eviction for room happens outside the shard's lock (never two shard
        // locks at once, so no lock order to get wrong), and a concurrent insert may take the
        // room first. Giving up only means one model is not cached.
        for _ in 0..<4 {
            let inserted = withShard(number) { shard -> Bool in
                guard shard.generation == expected else { return true }
                if let slot = shard.index[key] {
                    shard.released.append(shard.slots[slot].item)
                    shard.slots[slot].item = item
                    return true
                }
                guard reserveRoom() else { return false }
                shard.insert(key, item)
                return true
            }
            if inserted || !evictOneForRoom() { return }
        }
    }

    func invalidate(_ key: String, in space: KeySpace = .default) {
        let key = ByteKey(key, in: space)
        withShard(shardNumber(key)) { shard in
            shard.generation &+= 1
            if let slot = shard.index[key] { entries.subtract(UInt64(shard.remove(slot: slot))) }
        }
    }

    /// Invalidates keys each in its own space (a batch across collections); `spaces` nil
    /// means all in the default one.
    func invalidate(_ keys: [String], spaces: [KeySpace]?) {
        guard let spaces else { return invalidate(keys.map { ByteKey($0) }) }
        invalidate(zip(keys, spaces).map { ByteKey($0, in: $1) })
    }

    /// Invalidates `keys` taking each shard's lock once. Each shard's generation is bumped, so
    /// no read that started before this call inserts a model of any of these keys; the shards
    /// are invalidated one after another, as single-key writes would be.
    private func invalidate(_ keys: [ByteKey]) {
        guard !keys.isEmpty else { return }
        var byShard = [[ByteKey]](repeating: [], count: shardCount)
        for key in keys { byShard[shardNumber(key)].append(key) }
        for (number, keys) in byShard.enumerated() where !keys.isEmpty {
            withShard(number) { shard in
                shard.generation &+= 1
                var removed = 0
                for key in keys {
                    if let slot = shard.index[key] { removed += shard.remove(slot: slot) }
                }
                if removed > 0 { entries.subtract(UInt64(removed)) }
            }
        }
    }

    /// Invalidates the keys starting with `prefix` in `space` only.
    func invalidate(prefix: String, in space: KeySpace = .default) {
        removeEntries { $0.prefix == space.prefix && $0.string.utf8.starts(with: prefix.utf8) }
    }

    func removeAll() {
        removeEntries { _ in true }
    }

    /// Removes every entry whose key matches, bumping every shard's generation (a prefix may
    /// name keys in any shard, cached or not).
    private func removeEntries(where matches: (ByteKey) -> Bool) {
        for number in 0..<shardCount {
            withShard(number) { shard in
                shard.generation &+= 1
                let doomed = shard.index.filter { matches($0.key) }.map(\.value)
                var removed = 0
                for slot in doomed { removed += shard.remove(slot: slot) }
                if removed > 0 { entries.subtract(UInt64(removed)) }
            }
        }
    }

    /// Entries in the cache (exact when no insert is under way).
    var count: Int {
        Int(entries.load())
    }

    /// Entries counted shard by shard under their locks: equals ``count`` when nothing runs
    /// concurrently (the tests check the two agree).
    var storedEntryCount: Int {
        (0..<shardCount).reduce(0) { total, number in total + readingShard(number) { $0.state.index.count } }
    }

    // MARK: - Shards

    /// Counts one more entry if that keeps the count within the limit (a compare-and-swap, so
    /// the count never passes the limit, not even for a moment).
    private func reserveRoom() -> Bool {
        var current = entries.load()
        while current < UInt64(limit) {
            if entries.compareExchange(expected: current, desired: current + 1) { return true }
            current = entries.load()
        }
        return false
    }

    /// Evicts one entry from the first non-empty shard at or after the rotating hand; false if
    /// every shard was empty (the room is reserved by inserts under way).
    private func evictOneForRoom() -> Bool {
        let start = Int(truncatingIfNeeded: evictionHand.add(1))
        for step in 0..<shardCount {
            let number = (start &+ step) & (shardCount - 1)
            let evicted = withShard(number) { $0.evictOne() }
            if evicted {
                entries.subtract(1)
                return true
            }
        }
        return false
    }

    /// The shard of `key`: a multiplicative hash of its bytes, not `hashValue`, because the
    /// dictionary inside the shard hashes the key again (this one costs a few nanoseconds).
    @inline(__always)
    private func shardNumber(_ key: ByteKey) -> Int {
        guard shardCount > 1 else { return 0 }
        var hash = Self.hash(key.prefix, into: 0x9E37_79B9_7F4A_7C15)
        if let mixed = key.string.utf8.withContiguousStorageIfAvailable({ Self.hash($0, into: hash) }) {
            hash = mixed
        } else {
            hash = Self.hash(key.string.utf8, into: hash)
        }
        // Fold, multiply, and take the top bits: the best mixed.
        hash = (hash ^ (hash >> 29)) &* 0xBF58_476D_1CE4_E5B9
        return Int(truncatingIfNeeded: hash >> 58) & (shardCount - 1)
    }

    /// FNV-1a over `bytes`, continuing from `hash`.
    @inline(__always)
    private static func hash<Bytes: Sequence<UInt8>>(_ bytes: Bytes, into hash: UInt64) -> UInt64 {
        var hash = hash
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3 }
        return hash
    }

}

extension ObjectCache.Item {
    /// What a free slot holds.
    static var vacant: Self {
        Self(
            value: (), header: RecordHeader(storedAt: 0, expiresAt: nil, codec: .json), byteCount: 0, metadata: nil,
            tags: [])
    }

    /// What the cache keeps of `entry`, read from a record whose envelope is `header`.
    init<Value>(_ entry: ModelStore.Entry<Value>, header: RecordHeader) {
        self.init(
            value: entry.value, header: header, byteCount: entry.byteCount, metadata: entry.storedMetadata,
            tags: entry.tags)
    }
}
