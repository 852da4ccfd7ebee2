// MARK: - Changes per key, for the queued fills
//
// A record read from the tier on a local miss is stored locally later, off the reader's path
// (SharedTierFills.swift), and only if nothing changed the key since the tier was asked. One
// count for the whole database made that "nothing changed *any* key": on a busy node, where
// other nodes' writes are applied and the node's own read-through stores land all the time,
// almost every fill was dropped and the key was read from Redis again on each read. These
// counts are per stripe of keys (a hash of the collection and key), plus one for the changes
// that name no key (removals by prefix, tag, collection, of the whole database, and this
// process's bulk removals under way): a fill is dropped when its key's stripe or the bulk count
// moved. Two keys in one stripe only cost a dropped fill (the next read asks the tier again).

/// Counts of the changes that may have named a key: per stripe of keys and for bulk changes.
final class SharedTierKeyChanges: Sendable {
    /// Stripes: enough that a busy node's changes rarely share one with a fill in flight.
    static let stripeCount = 512

    private let stripes: [AtomicWord] = (0..<SharedTierKeyChanges.stripeCount).map { _ in AtomicWord() }
    /// Changes that name no key (any key may have changed).
    let bulk = AtomicWord()

    /// A reading of the counts for one key, taken before the tier is asked.
    struct Reading: Equatable, Sendable {
        let stripe: UInt64
        let bulk: UInt64
    }

    /// The hash of `key` in `collection` that picks its stripe. Equal keys (equal collections
    /// and keys) hash alike in one process, so a queued fill keeps its reading's hash
    /// (``SharedTierFills/Fill/keyHash``): its check loads its stripe without hashing the key
    /// again, and its batch tells keys apart by it (SharedTierFillKeys.swift).
    func hash(_ collection: String?, _ key: String) -> Int {
        var hasher = Hasher()
        hasher.combine(collection)
        hasher.combine(key)
        return hasher.finalize()
    }

    /// The stripe of the key whose ``hash(_:_:)`` is `hash`.
    private func stripe(hash: Int) -> AtomicWord {
        stripes[Int(UInt(bitPattern: hash) % UInt(Self.stripeCount))]
    }

    /// The counts now for the key whose ``hash(_:_:)`` is `hash`. The bulk count is read first: a
    /// change counted between the two loads shows up at the fill's check.
    func reading(hash: Int) -> Reading {
        let bulk = bulk.load()
        return Reading(stripe: stripe(hash: hash).load(), bulk: bulk)
    }

    /// Counts a change of `key` (before it is applied).
    func changed(_ collection: String?, _ key: String) {
        _ = stripe(hash: hash(collection, key)).add(1)
    }

    /// Counts a change that names no key (before it is applied, and again after it, for one
    /// that runs a while).
    func changedAll() {
        _ = bulk.add(1)
    }
}
