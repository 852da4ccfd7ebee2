import Dispatch

// MARK: - Local fills, off the reader's path
//
// A record read from the shared tier on a local miss is stored locally so the next read is a
// local hit. That store is a LevelDB write under the exclusive gate: about as long as the Redis
// round trip's own overhead. The reader does not wait for it: its answer is the record it read.
// The fill is queued and written on a queue of the database's own, fills that arrive meanwhile
// in one batch, each still only if nothing changed the key since the record was read (the same
// checks as when it was written in the call). Until it lands, a read of the key misses locally
// and asks the tier again: a round trip, never a stale answer. A revalidation that replaces a
// doubted local record is not queued (the key counts as revalidated at once, so the older local
// record must be gone by then).

/// The queue of one database's local fills (``SharedTierDatabase/fills``).
final class SharedTierFills: Sendable {
    /// One record read from the tier, to store locally.
    struct Fill: Sendable {
        /// The scope it was read through (its key space, its database).
        let scope: Scope
        /// The key, validated when it was read (its LevelDB bytes are made again as it lands,
        /// on the stack: an array of them per read cost the reader an allocation and the
        /// fills' thread its release).
        let key: String
        let bytes: [UInt8]
        let tags: [String]
        /// The counts of changes (remote and this process's) of the key's stripe and of bulk
        /// changes when the tier was asked (SharedTierKeyChanges.swift).
        let seen: SharedTierKeyChanges.Reading
        /// The key's hash that picked its stripe when `seen` was read
        /// (``SharedTierKeyChanges/hash(_:_:)``): the check reads the stripe with it, and its
        /// batch tells keys apart by it (``SharedTierFillKeys``).
        let keyHash: Int
        /// The count of the database's doubts begun when the tier was asked: the key is noted as
        /// revalidated as the fill lands only if none began since
        /// (``SharedTierDatabase/noteValidated(_:)``).
        let doubtsBegun: UInt64
    }

    private let state = Locked<(queued: [Fill], draining: Bool)>(([], false))
    private let queue = DispatchQueue(label: "ModelStore.sharedTier.fills")

    /// How long the first fill of a batch waits for others: waking the queue's thread for each
    /// fill cost the reader about as much as the write it saved (a reader reads again from the
    /// tier, never a stale value, until its fill lands). 2 ms rather than 0.5: each batch wakes
    /// a thread and commits, on CPUs that Redis and the readers share; a loop of tier hits took
    /// about 10 % less time per hit with 2 ms (issue 37, `fleet-hit-profile`).
    static let batchDelay: DispatchTimeInterval = .milliseconds(2)

    /// Queues `fill`; it is written soon, on the fills' queue.
    func add(_ fill: Fill, tier: SharedTierDatabase) {
        let start = state.withLock { state -> Bool in
            state.queued.append(fill)
            defer { state.draining = true }
            return !state.draining
        }
        if start { queue.asyncAfter(deadline: .now() + Self.batchDelay) { self.drain(tier) } }
    }

    /// Writes what is queued, batch after batch, until nothing is.
    private func drain(_ tier: SharedTierDatabase) {
        while true {
            let batch = state.withLock { state -> [Fill] in
                defer { state.queued.removeAll(keepingCapacity: true) }
                if state.queued.isEmpty { state.draining = false }
                return state.queued
            }
            guard let first = batch.first else { return }
            Self.write(batch, to: first.scope.database, tier: tier)
        }
    }

    /// Stores each fill whose key holds no local record and saw no invalidation and no change of
    /// this process naming it (or naming no key) since it was read (a removal of this process leaves no record to compare
    /// with: the key reads as never stored), in one write through the funnel (not published: the tier is applying it). Best
    /// effort: a closed database, say, keeps none, and the next read asks the tier again.
    private static func write(_ fills: [Fill], to database: OpenDatabase, tier: SharedTierDatabase) {
        SharedTierDatabase.applying {
            _ = try? database.commitExclusively { hold in
                // A bulk removal of this process under way may walk past a key before its fill
                // lands: fills wait for none, they are dropped (the next read asks the tier).
                guard tier.bulkRemovalsUnderWay.load() == 0 else { return }
                let batch = LevelDBWriteBatch()
                var changes = ChangeList()
                if fills.count > 1 { changes.reserveCapacity(fills.count) }
                var written = fills.count == 1 ? nil : SharedTierFillKeys(count: fills.count)
                // The fills that land, by index: each fill is read in place (a copy retains its
                // references, and releases them again).
                var landing: [Int] = []
                landing.reserveCapacity(fills.count)
                // The last read of a key wins (read after the others).
                for index in fills.indices.reversed() {
                    guard fills[index].seen == tier.keyChanges.reading(hash: fills[index].keyHash),
                        written?.take(index, of: fills) ?? true
                    else { continue }
                    let put = try fills[index].scope.space.withPhysicalKey(ofValidated: fills[index].key) { keyBytes in
                        guard try hold.engine.withValue(forKey: keyBytes, { $0 == nil }) else { return false }
                        fills[index].bytes.withUnsafeBytes { batch.put(key: keyBytes, value: $0) }
                        let tags = fills[index].tags
                        if !tags.isEmpty { TagIndex.addEntries(for: tags, recordKey: keyBytes, to: batch) }
                        return true
                    }
                    guard put else { continue }
                    changes.append(KeyChange(fills[index].key, in: fills[index].scope.space, .set))
                    landing.append(index)
                }
                guard batch.count > 0 else { return }
                // Noted before the write, under the gate: once a record is there, it is not doubted
                // (a note for a write that then fails names a key with no record: harmless).
                tier.noteValidated(fills, at: landing)
                try hold.write(.batch(batch), changes, sync: false)
            }
        }
    }
}
