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

    /// The stripe of `key` in `collection`.
    private func stripe(_ collection: String?, _ key: String) -> AtomicWord {
        var hasher = Hasher()
        hasher.combine(collection)
        hasher.combine(key)
        return stripes[Int(UInt(bitPattern: hasher.finalize()) % UInt(Self.stripeCount))]
    }

    /// The counts for `key` now. The bulk count is read first: a change counted between the two
    /// loads shows up at the fill's check.
    func reading(_ collection: String?, _ key: String) -> Reading {
        let bulk = bulk.load()
        return Reading(stripe: stripe(collection, key).load(), bulk: bulk)
    }

    /// Counts a change of `key` (before it is applied).
    func changed(_ collection: String?, _ key: String) {
        _ = stripe(collection, key).add(1)
    }

    /// Counts a change that names no key (before it is applied, and again after it, for one
    /// that runs a while).
    func changedAll() {
        _ = bulk.add(1)
    }
}
