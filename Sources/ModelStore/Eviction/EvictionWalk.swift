// MARK: - Eviction's walk
//
// Eviction never sorts the database and keeps nothing per record in memory. It walks the user
// records in key order, through the chunked removal loop, from where the previous walk stopped
// (the hand, forgotten at restart); it looks at them in windows of `Eviction.windowSize` and, of
// each window, removes the records the policy ranks lowest (one, or more when the database is
// far over its limits), until the database is under its targets. Key order has nothing to do
// with use or age, so a window is a random sample of the database: this is the sampling Redis
// uses for its approximated LRU, with the hand making every record a candidate once per rotation.
// A walk that evicts k records looks at about `windowSize` * k headers, plus one checksum for
// each record that ranks lowest so far in its window (about 4 per window of 32).

/// One record of a window that may be evicted: its rank, its LevelDB key and its size.
struct EvictionCandidate {
    /// The rank: expired records first (0, else 1), then fewer recent uses (0 under
    /// `oldestWritten`, and for records unused since the open), then written earlier.
    var rank: (live: UInt8, uses: UInt8, storedAt: Double)
    var key: [UInt8]
    var byteCount: Int

    /// Whether this record goes before `other`.
    func ranksBelow(_ other: EvictionCandidate) -> Bool {
        rank < other.rank
    }
}

/// What a walk removed.
struct EvictionOutcome {
    var evicted = 0
    var firstKey: [UInt8]?
    var lastKey: [UInt8]?

    mutating func noteRemoved(_ key: [UInt8]) {
        evicted += 1
        if firstKey.map({ key.lexicographicallyPrecedes($0) }) ?? true { firstKey = key }
        if lastKey.map({ $0.lexicographicallyPrecedes(key) }) ?? true { lastKey = key }
    }
}

extension LimitEnforcer {
    /// Evicts records until at most `targetBytes` record bytes and `targetCount` records remain
    /// (nil: no such target), ranking them by `eviction`; the caller holds ``walking``. Stops
    /// early after a whole rotation that evicted nothing (every record left is damaged: nothing
    /// is ever evicted that its checksum does not vouch for). A walk that covers the whole range
    /// from its start measures the database again, as a sweep does.
    func walk(
        in database: OpenDatabase, targetBytes: Int?, targetCount: Int?, eviction: ModelStore.Eviction
    ) throws -> EvictionOutcome {
        guard let reader = reader.withLock({ $0 }) else { return EvictionOutcome() }
        let now = reader.now()
        let timeToLive = reader.timeToLive
        let range = KeySpace.userRecords
        let windowSize = ModelStore.Eviction.windowSize
        let sketch = eviction == .leastRecentlyUsed ? self.sketch : nil
        // The ranks read the counters: every use the buffers hold goes into them first.
        sketch?.drainAll()
        var outcome = EvictionOutcome()
        var window: [EvictionCandidate] = []
        window.reserveCapacity(windowSize + 1)
        var seenInWindow = 0
        var perWindow = 1
        // What the current segment of the walk saw and evicted, to measure the database when a
        // segment covers the whole range.
        var segment = (bytes: 0, count: 0, evictedBytes: 0, evictedCount: 0)

        func overBytes() -> Bool { targetBytes.map { tracked.bytes > $0 } ?? false }
        func satisfied() -> Bool {
            let now = tracked
            return now.bytes <= (targetBytes ?? .max) && now.count <= (targetCount ?? .max)
        }
        // How many of a window go: as many as the share of the database that must go, at least one.
        func updatePerWindow() {
            let now = tracked
            var share = 0.0
            if let targetBytes, now.bytes > 0 { share = max(share, Double(now.bytes - targetBytes) / Double(now.bytes)) }
            if let targetCount, now.count > 0 { share = max(share, Double(now.count - targetCount) / Double(now.count)) }
            perWindow = min(windowSize, max(1, Int((Double(windowSize) * share).rounded(.up))))
        }
        func flush(_ chunk: inout RemovalChunk) {
            defer {
                window.removeAll(keepingCapacity: true)
                seenInWindow = 0
                updatePerWindow()
                windowsWalked += 1
                CrashPoint.evictionWindow.reached(occurrence: windowsWalked)
            }
            for candidate in window {
                if satisfied() { return }
                let byBytes = overBytes()
                let expired = candidate.rank.live == 0
                candidate.key.withUnsafeBytes { key in
                    let change = chunk.tracksKeys
                        ? KeySpace.split(key).map { KeyChange($0.key, in: $0.space, expired ? .expired : .evicted) } : nil
                    chunk.remove(key, reporting: change)
                }
                didEvict(key: candidate.key, byteCount: candidate.byteCount)
                segment.evictedBytes += candidate.byteCount
                segment.evictedCount += 1
                if expired { metrics.swept(1) } else { metrics.evicted(1, overBytes: byBytes) }
                outcome.noteRemoved(candidate.key)
            }
        }
        updatePerWindow()
        var start = hand
        while !satisfied() {
            let fromBeginning = start == range.lowerBound
            let evictedBefore = outcome.evicted
            segment = (0, 0, 0, 0)
            // A segment from the beginning measures the database if it reaches the end.
            let pass = fromBeginning ? beginPass(over: range, in: database) : nil
            defer { if let pass { abandon(pass) } }
            let next = try database.removeInChunks(range, from: start, sync: false, measuring: pass, visit: { key, value, chunk in
                seenInWindow += 1
                if let header = RecordHeader(parsingInPlace: value) {
                    segment.bytes += key.count + value.count
                    segment.count += 1
                    let live: UInt8 = header.isExpired(now: now, timeToLive: timeToLive) ? 0 : 1
                    let rank = (live, live == 0 ? 0 : sketch?.count(KeyHash.physical(key)) ?? 0, header.storedAt)
                    if window.count < perWindow || rank < window[window.count - 1].rank {
                        // The bytes must vouch for a record before it goes: a damaged storedAt
                        // must not make a record look old.
                        if header.vouchesForItsExpiry(value: value, key: key)
                            && reader.sealVouches(value, header: header, keyBytes: key)
                        {
                            let candidate = EvictionCandidate(
                                rank: rank, key: Array(key), byteCount: key.count + value.count)
                            let index = window.firstIndex { candidate.ranksBelow($0) } ?? window.count
                            window.insert(candidate, at: index)
                            if window.count > perWindow { window.removeLast() }
                        }
                    }
                }
                guard seenInWindow >= windowSize else { return true }
                flush(&chunk)
                return !satisfied()
            }, finishingChunk: { chunk in
                if seenInWindow > 0 { flush(&chunk) }
            })
            if let next {
                start = next
                break
            }
            // The walk reached the end of the range and goes on from the beginning.
            if let pass {
                // What it evicted was read by it, then counted as set aside: measured without it.
                finish(pass, measured: (segment.bytes - segment.evictedBytes, segment.count - segment.evictedCount))
                if outcome.evicted == evictedBefore { break }
            }
            start = range.lowerBound
        }
        hand = start
        // The sketch forgets at the pace the database turns over: 26 additions per record held.
        sketch?.adjustPeriod(records: tracked.count)
        noteForCompaction(outcome, in: database)
        return outcome
    }

    /// Schedules a compaction of the range evictions touched once 1,000 records or more went
    /// since the last one: LevelDB keeps deleted data on disk until a compaction rewrites it.
    private func noteForCompaction(_ outcome: EvictionOutcome, in database: OpenDatabase) {
        guard let first = outcome.firstKey, let last = outcome.lastKey else { return }
        if uncompacted.count == 0 || first.lexicographicallyPrecedes(uncompacted.first) { uncompacted.first = first }
        if uncompacted.count == 0 || uncompacted.last.lexicographicallyPrecedes(last) { uncompacted.last = last }
        uncompacted.count += outcome.evicted
        guard uncompacted.count >= Sweeper.compactionThreshold else { return }
        database.scheduleCompaction(start: uncompacted.first, limit: uncompacted.last)
        uncompacted = (0, [], [])
    }
}
