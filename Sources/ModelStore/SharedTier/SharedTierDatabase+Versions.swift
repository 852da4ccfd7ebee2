public import Foundation

// MARK: - Versions instead of forgetting
//
// A node in doubt (it attached, or its tier lost what it held, or it missed invalidations)
// deletes nothing. It sets a horizon: every local record stored at or before it is revalidated
// against the tier when first read (Scope+SharedTier.swift), and kept as it is whenever the
// tier knows nothing newer; a record stored after the horizon is this node's own write or one
// it read from the tier since, so it is current. An invalidation that carries versions drops a
// local record only if it is older than the version named, so a node's own newer write (still
// in its outbox, say) is never dropped by the news of an older one.

extension SharedTierDatabase {
    /// Starts doubting every record stored locally until now: each is revalidated against the
    /// tier when first read, instead of being deleted (a tier calls this when it cannot know what
    /// it missed: at attach, after its data was lost, after invalidations were missed). Memory's
    /// answers (decoded models, remembered "not found") are dropped, so reads reach the lookup.
    public func enterDoubt() {
        enterDoubt(afterDataLoss: false)
    }

    /// Starts doubting as ``enterDoubt()`` does, after the tier lost its data (restarted empty,
    /// flushed) while this node followed its invalidations: the records it holds are as current
    /// as the stream made them, and the writes the stream may not have delivered are published
    /// again from their writers' outboxes. So a record the tier now knows nothing of stays the
    /// answer, with no refresh from its source, unless it was still in doubt from before (not
    /// revalidated since the node attached or missed invalidations): a fleet whose Redis restarts
    /// does not go upstream for what its nodes hold (issue 37).
    public func enterDoubtAfterDataLoss() {
        enterDoubt(afterDataLoss: true)
    }

    private func enterDoubt(afterDataLoss: Bool) {
        guard let scope else { return }
        let horizon = clock.issue(scope.reader.now())
        var revalidated = Set<ByteKey>()
        validated.withLock { keys in
            swap(&keys, &revalidated)
            // Under the lock: a queued fill's note checks this count and inserts in one step.
            _ = doubtsBegun.add(1)
        }
        // A record kept because the tier knew nothing of it, still owed its refresh, stays owed
        // it across a loss of the tier's data: it was never confirmed.
        let owed = unconfirmed.withLock { keys -> Set<ByteKey> in
            if afterDataLoss { return keys }
            keys.removeAll()
            unconfirmedCount.store(0)
            return []
        }
        confirmed.withLock { confirmed in
            if afterDataLoss {
                revalidated.subtract(owed)
                if confirmed.count + revalidated.count <= Self.validatedLimit { confirmed.formUnion(revalidated) }
            } else {
                confirmed.removeAll()
                refreshHorizon.store(horizon.bitPattern)
            }
        }
        doubtHorizon.store(horizon.bitPattern)
        scope.database.forgetEverythingInMemory()
    }

    /// The doubt horizon: local records stored at or before it are revalidated against the tier
    /// when first read (``enterDoubt()``); nil while the database has never been in doubt.
    public var doubtedUntil: Date? {
        let bits = doubtHorizon.load()
        return bits == 0 ? nil : Date(timeIntervalSinceReferenceDate: Double(bitPattern: bits))
    }

    /// Whether the local record `record` of `key` must be revalidated before it is served: it is
    /// stored at or before the doubt horizon and was not revalidated since. One atomic load when
    /// the database is not in doubt.
    @inline(__always)
    func doubts(_ record: UnsafeRawBufferPointer, key: String, in space: KeySpace) -> SharedTierVersion? {
        let horizonBits = doubtHorizon.load()
        guard horizonBits != 0, let version = SharedTierVersion(storedAtOf: record),
            version.time <= Double(bitPattern: horizonBits)
        else { return nil }
        let key = ByteKey(key, in: space)
        return validated.withLock { $0.contains(key) } ? nil : version
    }

    /// Notes that the local record of `key` was revalidated (or replaced by the tier's).
    func noteValidated(_ key: String, in space: KeySpace) {
        guard doubtHorizon.load() != 0 else { return }
        validated.withLock { keys in
            if keys.count < Self.validatedLimit { keys.insert(ByteKey(key, in: space)) }
        }
    }

    /// Notes that the records of the queued fills `fills` at `indices` landed as read from the
    /// tier (so they are current, whatever their versions say of the horizon), each only if no
    /// doubt began since it was read: one that began after the read doubts what was read before it.
    func noteValidated(_ fills: [SharedTierFills.Fill], at indices: [Int]) {
        guard doubtHorizon.load() != 0 else { return }
        validated.withLock { keys in
            let current = doubtsBegun.load()
            for index in indices where fills[index].doubtsBegun == current && keys.count < Self.validatedLimit {
                keys.insert(ByteKey(fills[index].key, in: fills[index].scope.space))
            }
        }
    }

    /// Notes that the tier knew nothing of the doubted local record of `key` (of version
    /// `version`), which was kept; a read-through hit refreshes it from its source if it may be
    /// older than a write this node never heard of (``enterDoubtAfterDataLoss()``).
    func noteUnconfirmed(_ key: String, in space: KeySpace, version: SharedTierVersion) {
        guard version.time <= Double(bitPattern: refreshHorizon.load()) else { return }
        let key = ByteKey(key, in: space)
        guard !confirmed.withLock({ $0.contains(key) }) else { return }
        unconfirmed.withLock { keys in
            guard keys.count < Self.validatedLimit, keys.insert(key).inserted else { return }
            unconfirmedCount.store(UInt64(keys.count))
        }
    }

    /// Whether the local record of `key` was doubted and the tier knew nothing of it; forgets it,
    /// so one read-through hit (which then refreshes it from its source, sending its validators)
    /// takes it. One atomic load while there is none.
    @inline(__always)
    func takeUnconfirmed(_ key: String, in space: KeySpace) -> Bool {
        guard unconfirmedCount.load() != 0 else { return false }
        return unconfirmed.withLock { keys in
            guard keys.remove(ByteKey(key, in: space)) != nil else { return false }
            unconfirmedCount.store(UInt64(keys.count))
            return true
        }
    }

    /// A record read from the tier and stored locally.
    struct RecentFill {
        var key: String
        var space: KeySpace
        var version: Double
        /// When, in ``monotonicNanoseconds()``: a plain integer, where a `ContinuousClock.Instant`
        /// (a type of another module) cost a Redis hit about 150 instructions to read and compare.
        var at: UInt64
    }

    /// How long a record read from the tier counts as recent (10 s, in nanoseconds), and how many
    /// are remembered.
    static let recentFillWindow: UInt64 = 10_000_000_000
    static let recentFillLimit = 100_000

    /// Whether a fill at `at` is within ``recentFillWindow`` of `now` (one noted by another
    /// thread after `now` was read is).
    static func isRecent(_ at: UInt64, now: UInt64) -> Bool {
        at >= now || now - at <= recentFillWindow
    }

    /// The monotonic clock's reading in nanoseconds (what ``RecentFill/at`` is measured in).
    static func monotonicNanoseconds() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
    }

    /// Notes a record read from the tier and stored locally.
    func noteFilled(_ key: String, in space: KeySpace, version: Double) {
        let now = Self.monotonicNanoseconds()
        recentFills.withLock { fills in
            // The first one's time read in place, through the buffer: the array's subscript
            // copied the whole entry (retaining its names, and releasing them again).
            let oldest = fills.withUnsafeBufferPointer { $0.first?.at }
            if let oldest, !Self.isRecent(oldest, now: now) || fills.count >= Self.recentFillLimit {
                let cutoff = fills.firstIndex { Self.isRecent($0.at, now: now) } ?? fills.count
                fills.removeFirst(max(cutoff, fills.count >= Self.recentFillLimit ? fills.count / 2 : 0))
            }
            fills.append(RecentFill(key: key, space: space, version: version, at: now))
        }
    }

    /// Drops the records read from the tier in the last `recentFillWindow` (10 s) that are still as
    /// read: the tier's data was replaced (a new epoch), and if it was rolled back (restored from
    /// an older snapshot, failed over to a replica that was behind), they may be older than
    /// writes the fleet made; nothing before that moment told this node so. Its own writes stay.
    public func dropRecentFills() {
        let now = Self.monotonicNanoseconds()
        let fills = recentFills.withLock { fills -> [RecentFill] in
            defer { fills.removeAll() }
            return fills.filter { Self.isRecent($0.at, now: now) }
        }
        guard !fills.isEmpty else { return }
        // One step past each read version: the local record goes if it is still that one.
        apply(.versioned(fills.map {
            SharedTierChange(key: SharedTierKey(collection: $0.space.collection, key: $0.key), version: SharedTierVersion(time: $0.version.nextUp))
        }))
    }

    /// Drops each named key's local record that is older than the version named (under the
    /// exclusive gate, so the record compared is the one removed); a newer or equal one stays.
    /// Every named key is forgotten in memory either way.
    func dropOlder(than changes: [SharedTierChange], _ scope: Scope) throws {
        for change in changes { clock.observe(change.version.time) }
        var dropped: [SharedTierKey] = []
        defer { refreshLater(dropped, scope) }
        var byCollection: [String?: [SharedTierChange]] = [:]
        for change in changes { byCollection[change.key.collection, default: []].append(change) }
        for (collection, changes) in byCollection {
            guard let space = Self.space(collection) else { continue }
            try scope.database.commitExclusively { hold in
                let batch = LevelDBWriteBatch()
                var removed = ChangeList()
                for change in changes {
                    try space.withPhysicalKey(change.key.key) { keyBytes in
                        let older = try hold.engine.withValue(forKey: keyBytes) { record -> Bool in
                            guard let record else { return false }
                            // Not a record ModelStore can read: the tier's news wins over it.
                            guard let local = SharedTierVersion(record: record) else { return true }
                            return local < change.version
                        }
                        if older {
                            batch.delete(key: keyBytes)
                            removed.append(KeyChange(change.key.key, in: space, .removed))
                            dropped.append(change.key)
                        } else {
                            hold.forget(KeyChange(change.key.key, in: space, .set))
                        }
                    }
                }
                if batch.count > 0 { try hold.write(.batch(batch), removed, sync: false) }
            }
        }
    }
}
