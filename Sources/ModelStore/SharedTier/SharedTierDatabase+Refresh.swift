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
    /// The most keys waiting for a refresh at once: past it, the rest are read when a reader
    /// asks (a removal by many keys, or a writer overwriting many, is no reason for a burst of
    /// round trips).
    static let refreshLimit = 256

    /// The keys waiting for their refresh. One thread takes them, one round trip at a time: a
    /// refresh per invalidation, each on a thread of its own, took every connection of the
    /// pool while another node overwrote many keys this one held, and this node's own reads
    /// and publications failed waiting for one (FleetRefreshAttackTests).
    struct RefreshQueue: Sendable {
        var keys: [(key: SharedTierKey, scope: Scope)] = []
        var running = false
    }

    /// Takes the tier's records of `keys` (dropped from the local store because another node
    /// wrote them) into the local store, in the background.
    func refreshLater(_ keys: [SharedTierKey], _ scope: Scope) {
        guard !keys.isEmpty else { return }
        let start = refreshes.withLock { queue -> Bool in
            for key in keys.prefix(max(0, Self.refreshLimit - queue.keys.count)) { queue.keys.append((key, scope)) }
            defer { queue.running = true }
            return !queue.running
        }
        guard start else { return }
        tierThreads.run { [self] in refreshQueued() }
    }

    /// Refreshes what is queued until nothing is (or the tier is detached: what is left goes).
    private func refreshQueued() {
        while true {
            let attached = attachment != nil
            let next = refreshes.withLock { queue -> (key: SharedTierKey, scope: Scope)? in
                guard !queue.keys.isEmpty, attached else {
                    queue.keys.removeAll()
                    queue.running = false
                    return nil
                }
                return queue.keys.removeFirst()
            }
            guard let (key, scope) = next else { return }
            Self.scope(scope, key.collection).refreshFromTier(key.key, tier: self)
        }
    }
}
