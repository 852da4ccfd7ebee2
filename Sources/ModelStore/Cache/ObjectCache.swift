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
///   lock, and each shard's lock and bookkeeping on cache lines of their own, so hits on
///   different shards share no memory that either writes;
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
final class ObjectCache: @unchecked Sendable {
    // @unchecked: each shard's state is only touched while holding that shard's mutex; the
    // entry count and the eviction hand are atomic words. Values are only cached for
    // non-class model types (see `isCacheable`), so handing the same value to several threads
    // copies it.

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

    /// One shard's entries. Lives in the shard's block, after its mutex.
    private struct Shard {
        var index: [ByteKey: Int] = [:]
        var slots: [Slot] = []
        var freeSlots: [Int] = []
        /// The next slot the CLOCK sweep looks at.
        var hand = 0
        /// Bumped by every invalidation of a key in this shard (and by removeAll).
        var generation: UInt64 = 0

        struct Slot {
            var key: ByteKey?
            /// The entry; ``Item/vacant`` in a free slot. Not optional, so that a hit reads the
            /// parts it needs in place (an optional item was copied whole to be unwrapped).
            var item: Item = .vacant
            /// Set by a hit, cleared by the eviction sweep passing over it.
            var referenced = false
        }

        /// Removes the entry in `slot`; returns 1 so callers can sum what they removed.
        @discardableResult
        mutating func remove(slot: Int) -> Int {
            if let key = slots[slot].key { index[key] = nil }
            // Drop the model now rather than when the slot is reused.
            slots[slot] = Slot()
            freeSlots.append(slot)
            return 1
        }

        /// Evicts one entry chosen by CLOCK; false if the shard is empty.
        mutating func evictOne() -> Bool {
            guard !index.isEmpty else { return false }
            // Ends within two turns: the first clears every flag it passes.
            while true {
                if hand >= slots.count { hand = 0 }
                let slot = hand
                hand += 1
                guard slots[slot].key != nil else { continue }
                if slots[slot].referenced {
                    slots[slot].referenced = false
                    continue
                }
                remove(slot: slot)
                return true
            }
        }

        mutating func insert(_ key: ByteKey, _ item: Item) {
            // A new entry starts unreferenced: it survives until the sweep's next turn reaches
            // it, and past that only if it was read again.
            let slot = Slot(key: key, item: item)
            if let free = freeSlots.popLast() {
                slots[free] = slot
                index[key] = free
            } else {
                slots.append(slot)
                index[key] = slots.count - 1
            }
        }
    }

    let limit: Int
    private let shardCount: Int
    /// `shardCount` blocks of ``blockBytes``: the shard's pthread mutex, then its ``Shard``.
    private let blocks: UnsafeMutableRawPointer
    /// Entries in all shards, plus inserts that reserved room and have not yet inserted; never
    /// more than `limit`.
    private let entries = AtomicWord()
    /// Which shard the next eviction for room starts at.
    private let evictionHand = AtomicWord()

    /// A mutex then a shard's state, rounded up to whole 128-byte blocks (``AtomicWord/isolationBytes``).
    private static let shardOffset = (MemoryLayout<pthread_mutex_t>.size + 15) & ~15
    private static let blockBytes: Int = {
        let size = shardOffset + MemoryLayout<Shard>.size
        let unit = AtomicWord.isolationBytes
        return (size + unit - 1) / unit * unit
    }()

    /// At most this many shards: more than any two-socket server has cores to contend with.
    static let maximumShardCount = 32
    /// Each shard holds about this many entries at least, so that per-shard eviction order
    /// stays close to the whole cache's.
    static let minimumEntriesPerShard = 32

    /// Whether inserts hash their keys for eviction's use counts: only when the database counts
    /// uses, so a store without limits pays nothing for them on a miss.
    private let hashesKeys: Bool

    init(limit: Int, hashesKeys: Bool = false) {
        precondition(limit > 0)
        self.limit = limit
        self.hashesKeys = hashesKeys
        var count = 1
        while count * 2 <= Self.maximumShardCount, count * 2 * Self.minimumEntriesPerShard <= limit { count *= 2 }
        shardCount = count
        blocks = .allocate(byteCount: count * Self.blockBytes, alignment: AtomicWord.isolationBytes)
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
            shard(number).initialize(to: Shard())
        }
    }

    deinit {
        for number in 0..<shardCount {
            shard(number).deinitialize(count: 1)
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
        return withShard(number) { $0.generation }
    }

    /// Calls `body` with the header, the model and the key's ``KeyHash`` cached for `key`, in
    /// place under its shard's lock, and marks the entry read; does nothing if there is none. A
    /// hit copies only what it takes (``lookup(_:in:)`` copies the whole item: the model,
    /// metadata, tags and header).
    @inline(__always)
    func withItem(
        _ key: String, in space: KeySpace = .default, _ body: (RecordHeader, CachedModel, _ useHash: UInt64) -> Void
    ) {
        let key = ByteKey(key, in: space)
        withShard(shardNumber(key)) { shard in
            guard let slot = shard.index[key] else { return }
            // Written only when clear, so repeated hits leave the line clean in other cores' caches.
            if !shard.slots[slot].referenced { shard.slots[slot].referenced = true }
            // Through a buffer pointer, whose subscript addresses the slot (the array's copied it).
            shard.slots.withUnsafeBufferPointer { slots in
                body(slots[slot].item.header, slots[slot].item.value, slots[slot].item.useHash)
            }
        }
    }

    func lookup(_ key: String, in space: KeySpace = .default) -> Item? {
        let key = ByteKey(key, in: space)
        return withShard(shardNumber(key)) { shard in
            guard let slot = shard.index[key] else { return nil }
            // Written only when clear, so repeated hits leave the line clean in other cores' caches.
            if !shard.slots[slot].referenced { shard.slots[slot].referenced = true }
            return shard.slots[slot].item as Item?
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
        (0..<shardCount).reduce(0) { total, number in total + withShard(number) { $0.index.count } }
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

    @inline(__always)
    private func mutex(_ number: Int) -> UnsafeMutablePointer<pthread_mutex_t> {
        (blocks + number * Self.blockBytes).assumingMemoryBound(to: pthread_mutex_t.self)
    }

    @inline(__always)
    private func shard(_ number: Int) -> UnsafeMutablePointer<Shard> {
        (blocks + number * Self.blockBytes + Self.shardOffset).assumingMemoryBound(to: Shard.self)
    }

    /// Runs `body` on shard `number`'s state while holding its mutex.
    @inline(__always)
    private func withShard<Result>(_ number: Int, _ body: (inout Shard) -> Result) -> Result {
        let mutex = mutex(number)
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body(&shard(number).pointee)
    }
}

/// A decoded model as the object cache keeps it: in a box of the model's own type, with that type.
///
/// A hit compares the type and reads the model out of the box; a model kept as `Any` went through
/// the runtime's general cast on every hit (about a tenth of a hit's instructions), and it took
/// conversions no hit needs: a model cached as one type is served only as that type, and a read
/// as another decodes the record, as a read of a model that is not cached does.
@usableFromInline
struct CachedModel {
    @usableFromInline let box: AnyObject
    @usableFromInline let type: Any.Type

    init<Model>(_ model: Model) {
        box = ModelBox(model)
        type = Model.self
    }

    /// The model, if it is a `Model`.
    @inlinable
    func model<Model>(of _: Model.Type) -> Model? {
        guard type == Model.self else { return nil }
        return unsafeDowncast(box, to: ModelBox<Model>.self).model
    }
}

/// The box of a ``CachedModel``.
@usableFromInline
final class ModelBox<Model> {
    @usableFromInline let model: Model

    init(_ model: Model) {
        self.model = model
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
