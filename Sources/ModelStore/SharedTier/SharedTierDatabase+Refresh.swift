// MARK: - Taking another node's write in the background
//
// Without a tier, a write changes nothing on other nodes; with one, it makes every node that
// held the key drop its copy, and the next read of the key there goes to the tier: a hand-off
// and a round trip on the reader's path, which in a read-mostly fleet with overwrites costs the
// other nodes more than the writes cost the writer (PERFORMANCE.md, "How much the writers' wait
// weighs"). So a node that dropped its copy takes the new record from the tier in the
// background, on a thread of its own, as a read that missed would (same checks, same queued
// fill): its next read is local. Only keys it held, so the tier is not asked for keys this node
// never read; a refresh that finds the key changed again, or the record gone, stores nothing.

extension SharedTierDatabase {
    /// The most keys one invalidation's refresh asks the tier for: past it, the rest are read
    /// when a reader asks (a removal by many keys is no reason for a burst of round trips).
    static let refreshLimit = 256

    /// Takes the tier's records of `keys` (dropped from the local store because another node
    /// wrote them) into the local store, in the background.
    func refreshLater(_ keys: [SharedTierKey], _ scope: Scope) {
        guard !keys.isEmpty else { return }
        let keys = keys.prefix(Self.refreshLimit)
        tierThreads.run { [self] in
            for key in keys {
                guard attachment != nil else { return }
                Self.scope(scope, key.collection).refreshFromTier(key.key, tier: self)
            }
        }
    }
}
