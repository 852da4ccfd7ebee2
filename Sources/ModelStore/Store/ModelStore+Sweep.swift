import Foundation
import Logging

extension ModelStore {
    /// Removes every expired record, then, if ``Configuration/maximumRecordCount`` or
    /// ``Configuration/maximumTotalBytes`` is set, the oldest records beyond those limits.
    /// Returns how many records it removed.
    ///
    /// It sweeps the whole database: the default collection and every named collection
    /// (``collection(_:)``). Each record is judged by its own deadline (a lifetime given when
    /// it was written, or stamped by a collection opened with a policy), else by this store's
    /// policy. The limits are database-wide: they count the records of every collection
    /// together, and the oldest records go first, whichever collection they are in.
    ///
    /// ```swift
    /// let removed = try store.removeExpiredObjects()
    /// ```
    ///
    /// A sweep reads only record headers; it never decodes a model. It works in chunks, each
    /// holding off other writers only briefly and re-checking records under that hold, so it
    /// never removes a record that was just rewritten. After removing 1,000 records or more it
    /// starts a compaction of the affected key range on a background queue, because LevelDB
    /// keeps deleted data on disk until a compaction rewrites it; the sweep returns without
    /// waiting for it. Call ``compact(in:)`` to compact and wait.
    ///
    /// - Complexity: O(*n*) in the records in the database.
    /// - Throws: A write error as ``set(_:forKey:)``; ``ModelStoreError/closed(path:)``.
    @discardableResult
    public func removeExpiredObjects() throws -> Int {
        try removeExpiredObjects(range: KeySpace.userRecords, enforcingLimits: true)
    }

    /// Sweeps the physical `range`; the limits only for the database-wide sweep.
    func removeExpiredObjects(range: KeyRange, enforcingLimits: Bool) throws -> Int {
        let database = try openDatabase()
        let sweeper = Sweeper(database: database, reader: reader, now: reader.now(), range: range)
        let tracksSizes = enforcingLimits
            && (configuration.maximumRecordCount != nil || configuration.maximumTotalBytes != nil)
        var outcome = try sweeper.removeExpired(collectingLiveRecords: tracksSizes)
        if tracksSizes {
            outcome.merge(try sweeper.evictOldest(
                from: outcome.live, maximumCount: configuration.maximumRecordCount,
                maximumBytes: configuration.maximumTotalBytes))
        }
        // Tag-index entries of records this sweep (or an earlier overwrite or removal) dropped.
        try pruneTagIndex(in: database)
        if outcome.removed >= Sweeper.compactionThreshold, let first = outcome.firstRemovedKey,
            let last = outcome.lastRemovedKey
        {
            database.scheduleCompaction(start: first, limit: last)
        }
        if outcome.removed > 0 {
            database.logger.debug(
                "Swept database", metadata: ["database": "\(database.path)", "removed": "\(outcome.removed)"])
        }
        return outcome.removed
    }
}

/// The chunked scan behind sweeps and limit enforcement.
struct Sweeper {
    /// Records scanned per chunk; each chunk holds the exclusive write gate.
    static let chunkSize = 16_384
    /// A sweep that removes at least this many records compacts the range it touched.
    static let compactionThreshold = 1_000

    /// Stored time and size of a live record, for choosing the oldest to evict.
    struct LiveRecord {
        var storedAt: Double
        var byteCount: Int
    }

    struct Outcome {
        var removed = 0
        var firstRemovedKey: [UInt8]?
        var lastRemovedKey: [UInt8]?
        var live: [LiveRecord] = []

        mutating func noteRemoved(_ key: UnsafeRawBufferPointer) {
            removed += 1
            if firstRemovedKey == nil { firstRemovedKey = Array(key) }
            // Keys arrive in order, so this is the largest so far; the buffer is reused.
            if lastRemovedKey == nil { lastRemovedKey = [] }
            lastRemovedKey!.removeAll(keepingCapacity: true)
            lastRemovedKey!.append(contentsOf: key)
        }

        mutating func merge(_ other: Outcome) {
            removed += other.removed
            if let first = other.firstRemovedKey {
                if let mine = firstRemovedKey {
                    firstRemovedKey = first.lexicographicallyPrecedes(mine) ? first : mine
                } else {
                    firstRemovedKey = first
                }
            }
            if let last = other.lastRemovedKey {
                if let mine = lastRemovedKey {
                    lastRemovedKey = mine.lexicographicallyPrecedes(last) ? last : mine
                } else {
                    lastRemovedKey = last
                }
            }
        }
    }

    let database: OpenDatabase
    let reader: RecordReader
    let now: Double
    /// The physical keys swept: every user record (the default collection and every named
    /// one, never a system record) for the store's sweep, one collection's for its own.
    var range: KeyRange = KeySpace.userRecords

    /// Removes records whose headers say they are expired at `now`, once their bytes vouch for
    /// it: a record is verified only when it is about to be deleted, so a sweep over live
    /// records costs what it did. A record that fails its checksum (or, from an earlier
    /// release, has a deadline no write stores) is never deleted: it stays for reads to report
    /// as `corrupted` and for `removeObject(forKey:)` or a repair to deal with. Nor does
    /// ``evictOldest(from:maximumCount:maximumBytes:)`` evict it.
    func removeExpired(collectingLiveRecords: Bool) throws -> Outcome {
        let timeToLive = reader.timeToLive
        let now = now
        return try scan(reporting: .expired) { key, record, outcome in
            guard let header = RecordHeader(parsing: record) else { return false }  // never delete what we cannot read
            if header.isExpired(now: now, timeToLive: timeToLive) {
                return header.vouchesForItsExpiry(value: record, key: key)
            }
            if collectingLiveRecords {
                outcome.live.append(LiveRecord(storedAt: header.storedAt, byteCount: key.count + record.count))
            }
            return false
        }
    }

    /// Removes the oldest records until at most `maximumCount` records and `maximumBytes`
    /// bytes remain.
    func evictOldest(from live: [LiveRecord], maximumCount: Int?, maximumBytes: Int?) throws -> Outcome {
        var totalBytes = live.reduce(0) { $0 + $1.byteCount }
        var remaining = live.count
        let oldestFirst = live.sorted { $0.storedAt < $1.storedAt }
        var evict = 0
        let countLimit = maximumCount ?? .max
        let byteLimit = maximumBytes ?? .max
        while evict < oldestFirst.count && (remaining > countLimit || totalBytes > byteLimit) {
            remaining -= 1
            totalBytes -= oldestFirst[evict].byteCount
            evict += 1
        }
        guard evict > 0 else { return Outcome() }
        // Evict everything stored before the cutoff, and as many records stored exactly at
        // it as are still needed (in key order).
        let cutoff = oldestFirst[evict - 1].storedAt
        var atCutoff = oldestFirst[..<evict].reduce(0) { $0 + ($1.storedAt == cutoff ? 1 : 0) }
        // As for expiry, the bytes must vouch for a record before it is evicted: a damaged
        // storedAt must not make a record look oldest.
        return try scan(reporting: .evicted) { key, record, _ in
            guard let header = RecordHeader(parsing: record) else { return false }
            if header.storedAt < cutoff { return header.vouchesForItsExpiry(value: record, key: key) }
            if header.storedAt == cutoff && atCutoff > 0 && header.vouchesForItsExpiry(value: record, key: key) {
                atCutoff -= 1
                return true
            }
            return false
        }
    }

    /// Walks the whole database in chunks. Each chunk runs under the exclusive write gate
    /// with a fresh iterator, so what it sees is current, and deletes in one atomic batch the
    /// records `shouldRemove` picks.
    private func scan(
        reporting kind: ModelStore.Change.Kind,
        _ shouldRemove: (_ key: UnsafeRawBufferPointer, _ record: UnsafeRawBufferPointer, inout Outcome) -> Bool
    ) throws -> Outcome {
        var outcome = Outcome()
        var resumeAfter: [UInt8]? = nil
        let observed = database.changes.isObserved
        let tracksKeys = database.cache != nil || observed
        let range = range
        while true {
            var removedKeys: [String] = []
            var removedSpaces: [KeySpace] = []
            let (seen, lastKey) = try database.exclusiveWrite { engine -> (Int, [UInt8]?) in
                let iterator = try engine.makeIterator(snapshot: nil, fillCache: false)
                let batch = LevelDBWriteBatch()
                if let resumeAfter {
                    // Continue after the key the previous chunk ended on, if it is still there.
                    try iterator.seek(to: resumeAfter)
                    let onResumeKey = try iterator.withCurrent { key, _ in KeyRange.compare(key, resumeAfter) == 0 }
                    if onResumeKey == true { try iterator.next() }
                } else {
                    try iterator.seek(to: range.lowerBound)
                }
                var pastEnd = false
                let (seen, lastKey) = try iterator.scanForward(limit: Self.chunkSize) { key, record in
                    if range.isPastEnd(key, reverse: false) {
                        pastEnd = true
                        return false
                    }
                    if shouldRemove(key, record, &outcome) {
                        batch.delete(key: key)
                        outcome.noteRemoved(key)
                        if tracksKeys, let (space, userKey) = KeySpace.split(key) {
                            removedKeys.append(userKey)
                            removedSpaces.append(space)
                        }
                    }
                    return true
                }
                if batch.count > 0 { try engine.write(batch, sync: false) }
                return pastEnd ? (0, nil) : (seen, lastKey)  // (0, nil): no next chunk
            }
            if !removedKeys.isEmpty {
                database.cache?.invalidate(removedKeys, spaces: removedSpaces)
                if observed {
                    database.changes.publish(
                        zip(removedKeys, removedSpaces).map {
                            ModelStore.Change(key: $0, kind: kind, collection: $1.collection)
                        })
                }
            }
            guard seen == Self.chunkSize, let lastKey else { return outcome }
            resumeAfter = lastKey
        }
    }
}
