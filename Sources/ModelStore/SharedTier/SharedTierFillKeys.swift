// MARK: - The keys a batch of fills took
//
// A batch of queued fills writes each key once, from its last read (SharedTierFills.swift).
// Telling the keys apart took a `Set` of the keys' bytes: each key hashed again, and the set
// grown from empty in every batch (a rehash of every key at each doubling), about 1,300
// instructions per fill on the thread that shares the CPU with Redis and the readers. The
// fill's reading already hashed its key (``SharedTierKeyChanges/hash(_:_:)``, to pick its
// stripe), and equal keys have equal hashes: a table of the batch's size, made once, keyed by
// that hash, compares the keys' bytes only when two hashes are equal.

/// The keys of one batch of fills taken so far: fills with distinct keys cost a slot each, no
/// hashing and no growth.
struct SharedTierFillKeys {
    /// Per slot, the index (plus one) of the fill that took it; 0: empty. Twice the batch's
    /// size or more, a power of two, so a probe ends quickly.
    private var slots: [Int]
    private let mask: Int

    /// An empty table for a batch of `count` fills.
    init(count: Int) {
        var size = 4
        while size < 2 * count { size <<= 1 }
        slots = Array(repeating: 0, count: size)
        mask = size - 1
    }

    /// Takes the key of `fills[index]`; false if a fill taken before holds the same key (the
    /// same LevelDB bytes: the same key space, whose prefixes are prefix-free, and the same
    /// UTF-8). Keys are told apart by their bytes, as LevelDB does: the hash only spares
    /// comparing them (an equal key has an equal hash: the same collection and the same key).
    mutating func take(_ index: Int, of fills: [SharedTierFills.Fill]) -> Bool {
        let hash = fills[index].keyHash
        var slot = hash & mask
        while true {
            let held = slots[slot]
            if held == 0 {
                slots[slot] = index + 1
                return true
            }
            if fills[held - 1].keyHash == hash && Self.sameKey(fills[held - 1], fills[index]) { return false }
            slot = (slot + 1) & mask
        }
    }

    /// Whether two fills name the same LevelDB key.
    private static func sameKey(_ one: SharedTierFills.Fill, _ other: SharedTierFills.Fill) -> Bool {
        one.scope.space == other.scope.space && one.key.utf8.elementsEqual(other.key.utf8)
    }
}
