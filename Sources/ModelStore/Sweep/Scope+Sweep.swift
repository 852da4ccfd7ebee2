import Foundation
import Logging

extension Scope {
    /// Removes the expired records of `range` (every user record for the store's sweep, one
    /// collection's for its own), then, when `enforcingLimits` and a limit is set, the oldest
    /// records beyond ``ModelStore/Configuration/maximumRecordCount`` and
    /// ``ModelStore/Configuration/maximumTotalBytes``; returns how many it removed. Each record is
    /// judged by its own deadline, else by this scope's policy; a sweep reads envelopes only.
    func removeExpiredObjects(range: KeyRange, enforcingLimits: Bool) throws -> Int {
        let database = try open()
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
        try database.pruneTagIndex(sync: configuration.syncWrites)
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

/// The decisions of a sweep, over the chunked removal loop: which records have expired, and
/// which are the oldest beyond the limits.
struct Sweeper {
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
            // Keys arrive in order, so this is the largest so far; the buffer is reused, its bytes
            // copied over in place when the length is the same (most keys: a generic append per
            // record cost about a third of a plain store's sweep beside LevelDB).
            if lastRemovedKey?.count == key.count {
                lastRemovedKey!.withUnsafeMutableBytes { $0.copyMemory(from: key) }
                return
            }
            if lastRemovedKey == nil { lastRemovedKey = [] }
            lastRemovedKey!.removeAll(keepingCapacity: true)
            lastRemovedKey!.append(contentsOf: key)
        }

        mutating func merge(_ other: Outcome) {
            removed += other.removed
            if let first = other.firstRemovedKey {
                firstRemovedKey = firstRemovedKey.map { first.lexicographicallyPrecedes($0) ? first : $0 } ?? first
            }
            if let last = other.lastRemovedKey {
                lastRemovedKey = lastRemovedKey.map { $0.lexicographicallyPrecedes(last) ? last : $0 } ?? last
            }
        }
    }

    let database: OpenDatabase
    let reader: RecordReader
    let now: Double
    /// The physical keys swept: every user record (the default collection and every named
    /// one, never a system record) for the store's sweep, one collection's for its own.
    var range: KeyRange = KeySpace.userRecords

    /// Removes records whose envelopes say they are expired at `now`, once their bytes vouch for
    /// it: a record is verified only when it is about to be deleted, so a sweep over live records
    /// costs what it did. A record that fails its checksum (or, from an earlier release, has a
    /// deadline no write stores) is never deleted: it stays for reads to report as `corrupted`
    /// and for `removeObject(forKey:)` or a repair to deal with. Nor does
    /// ``evictOldest(from:maximumCount:maximumBytes:)`` evict it.
    func removeExpired(collectingLiveRecords: Bool) throws -> Outcome {
        let timeToLive = reader.timeToLive
        let reader = reader
        let now = now
        return try sweep(reporting: .expired) { key, record, outcome in
            guard let header = RecordHeader(parsingInPlace: record) else { return false }  // never delete what we cannot read
            if header.isExpired(now: now, timeToLive: timeToLive) {
                return header.vouchesForItsExpiry(value: record, key: key)
                    && reader.sealVouches(record, header: header, keyBytes: key)
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
        let reader = reader
        // As for expiry, the bytes must vouch for a record before it is evicted: a damaged
        // storedAt must not make a record look oldest.
        return try sweep(reporting: .evicted) { key, record, _ in
            guard let header = RecordHeader(parsing: record) else { return false }
            // An encrypting store's records vouch through their seal (storedAt is bound to it).
            let vouches = {
                header.vouchesForItsExpiry(value: record, key: key)
                    && reader.sealVouches(record, header: header, keyBytes: key)
            }
            if header.storedAt < cutoff { return vouches() }
            if header.storedAt == cutoff && atCutoff > 0 && vouches() {
                atCutoff -= 1
                return true
            }
            return false
        }
    }

    /// Walks the range through the chunked removal loop, removing what `shouldRemove` picks.
    private func sweep(
        reporting kind: ModelStore.Change.Kind,
        _ shouldRemove: (_ key: UnsafeRawBufferPointer, _ record: UnsafeRawBufferPointer, inout Outcome) -> Bool
    ) throws -> Outcome {
        var outcome = Outcome()
        // Sweeps never wait for the disk: what they remove is expired (or beyond a limit) anyway.
        try database.removeInChunks(range, sync: false) { key, record, chunk in
            guard shouldRemove(key, record, &outcome) else { return }
            outcome.noteRemoved(key)
            let change = chunk.tracksKeys ? KeySpace.split(key).map { KeyChange($0.key, in: $0.space, kind) } : nil
            chunk.remove(key, reporting: change)
        }
        return outcome
    }
}
