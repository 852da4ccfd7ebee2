import Foundation
import Logging

extension Scope {
    /// Removes the expired records of `range` (every user record for the store's sweep, one
    /// collection's for its own), then, when `enforcingLimits` and a limit is set, evicts records
    /// beyond ``ModelStore/Configuration/maximumRecordCount`` and
    /// ``ModelStore/Configuration/maximumTotalBytes`` in the order of
    /// ``ModelStore/Configuration/eviction`` (Eviction/); returns how many it removed. Each record
    /// is judged by its own deadline, else by this scope's policy; a sweep reads envelopes only.
    func removeExpiredObjects(range: KeyRange, enforcingLimits: Bool) throws -> Int {
        let database = try open()
        let sweeper = Sweeper(database: database, reader: reader, now: reader.now(), range: range)
        let limits = enforcingLimits ? configuration.limits : LimitEnforcer.Limits(eviction: configuration.eviction)
        let enforcer = limits.isEmpty ? nil : sweepEnforcer(database, limits: limits)
        let pass = enforcer?.beginPass(over: range, in: database)
        defer { if let pass { enforcer?.abandon(pass) } }
        var outcome = try sweeper.removeExpired(measuring: pass)
        database.evictionMetrics.swept(outcome.removed)
        if let enforcer, let pass {
            outcome.merge(
                try sweeper.evictToLimits(
                    limits, with: enforcer, measured: (outcome.liveBytes, outcome.liveCount), by: pass))
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

    struct Outcome {
        var removed = 0
        var firstRemovedKey: [UInt8]?
        var lastRemovedKey: [UInt8]?
        /// Bytes (keys and values) and number of the live records the sweep saw, when it measured them.
        var liveBytes = 0
        var liveCount = 0

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
    /// eviction evict it (Eviction/EvictionWalk.swift).
    func removeExpired(measuring pass: MeasuringPass?) throws -> Outcome {
        let timeToLive = reader.timeToLive
        let reader = reader
        let now = now
        let measuringLiveRecords = pass != nil
        return try sweep(reporting: .expired, measuring: pass) { key, record, outcome in
            guard let header = RecordHeader(parsingInPlace: record) else { return false }  // never delete what we cannot read
            if header.isExpired(now: now, timeToLive: timeToLive) {
                return header.vouchesForItsExpiry(value: record, key: key)
                    && reader.sealVouches(record, header: header, keyBytes: key)
            }
            if measuringLiveRecords {
                outcome.liveBytes += key.count + record.count
                outcome.liveCount += 1
            }
            return false
        }
    }

    /// Walks the range through the chunked removal loop, removing what `shouldRemove` picks.
    private func sweep(
        reporting kind: ModelStore.Change.Kind, measuring pass: MeasuringPass?,
        _ shouldRemove: (_ key: UnsafeRawBufferPointer, _ record: UnsafeRawBufferPointer, inout Outcome) -> Bool
    ) throws -> Outcome {
        var outcome = Outcome()
        // Sweeps never wait for the disk: what they remove is expired (or beyond a limit) anyway.
        try database.removeInChunks(range, sync: false, measuring: pass) { key, record, chunk in
            guard shouldRemove(key, record, &outcome) else { return }
            outcome.noteRemoved(key)
            let change = chunk.tracksKeys ? KeySpace.split(key).map { KeyChange($0.key, in: $0.space, kind) } : nil
            chunk.remove(key, reporting: change)
        }
        return outcome
    }
}
