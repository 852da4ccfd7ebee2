import Foundation

// MARK: - The lookup's shared-tier step
//
// On a local miss of a database with a shared tier, the one record lookup asks the tier. What
// the tier answers is verified as a local record is (envelope, checksum over the LevelDB key and
// every byte), judged for expiry, given at most the lifetime the tier has left for it, stored
// locally through the write funnel (not published back), and handed to the lookup as if LevelDB
// had answered. Anything else the tier holds for the key is a miss, and is dropped from the tier.

extension Scope {
    /// ``withStoredRecord(_:through:_:)`` for a database with a shared tier, reading the live
    /// database: LevelDB first, then on a miss the tier. Inlined like its caller, so a local hit
    /// is specialised as it is without a tier (the benchmark's "local hit with a tier" row).
    @inline(__always)
    func withStoredOrSharedRecord<Result>(
        _ key: String, tier: SharedTierDatabase,
        _ body: (_ keyBytes: UnsafeRawBufferPointer, _ record: UnsafeRawBufferPointer?) throws -> Result
    ) throws -> Result {
        try space.withPhysicalKey(key) { keyBytes in
            var missed = false
            var doubted: SharedTierVersion? = nil
            let local = try database.run { engine in
                try engine.withValue(forKey: keyBytes, snapshot: nil) { record -> Result? in
                    guard let record else {
                        missed = true
                        return nil
                    }
                    // Stored before the database's doubt began: revalidated first (below).
                    if let version = tier.doubts(record, key: key, in: space), !SharedTierDatabase.isApplying {
                        doubted = version
                        return nil
                    }
                    return try body(keyBytes, record)
                }
            }
            if !missed, doubted == nil, let local { return local }
            // What the tier itself stores locally never asks the tier again; nor does a
            // read-through's hit step on the cooperative pool (its miss path asks, off the pool).
            // Both flags in one read (`tierFlags`).
            guard SharedTierDatabase.tierFlags == 0 else { return try body(keyBytes, nil) }
            if let doubted {
                switch revalidate(key, keyBytes: keyBytes, local: doubted, tier: tier) {
                case .replaced(let shared): return try shared.withUnsafeBytes { try body(keyBytes, $0) }
                case .removed: return try body(keyBytes, nil)
                case .kept:
                    return try database.run { engine in
                        try engine.withValue(forKey: keyBytes, snapshot: nil) { try body(keyBytes, $0) }
                    }
                }
            }
            guard let shared = sharedRecord(key, keyBytes: keyBytes, tier: tier) else {
                return try body(keyBytes, nil)
            }
            return try shared.withUnsafeBytes { try body(keyBytes, $0) }
        }
    }

    /// What revalidating a doubted local record did.
    private enum Revalidation {
        /// The tier holds a newer record: it replaced the local one, and is served.
        case replaced([UInt8])
        /// The tier says the key was removed after the local record was stored: it is gone.
        case removed
        /// The local record stays (the tier holds the same or an older version, nothing, or
        /// cannot be reached: the local record is the fail-safe answer).
        case kept
    }

    /// Revalidates the local record of `key` (of version `local`) against the tier.
    private func revalidate(
        _ key: String, keyBytes: UnsafeRawBufferPointer, local: SharedTierVersion, tier: SharedTierDatabase
    ) -> Revalidation {
        guard let attachment = tier.attachment else { return .kept }
        let sharedKey = SharedTierKey(collection: space.collection, key: key)
        let seen = tier.changesSeen(space.collection, key)
        switch attachment.lookup(sharedKey) {
        case .unavailable:
            return .kept
        case .absent:
            // Kept and served (the fail-safe answer); a read-through refreshes it from its source.
            tier.noteValidated(key, in: space)
            tier.noteUnconfirmed(key, in: space, version: local)
            return .kept
        case .removed(let version):
            tier.clock.observe(version.time)
            guard local < version else {
                tier.noteValidated(key, in: space)
                return .kept
            }
            // Dropped as an invalidation of that version would drop it: only if still older.
            tier.apply(.versioned([SharedTierChange(key: sharedKey, version: version)]))
            return .removed
        case .record(let shared):
            guard let version = shared.bytes.withUnsafeBytes({ SharedTierVersion(record: $0) }), local < version else {
                tier.noteValidated(key, in: space)
                return .kept
            }
            tier.clock.observe(version.time)
            guard
                let bytes = verifiedSharedRecord(
                    shared, key, keyBytes: keyBytes, replacing: local, seen: seen, tier: tier, attachment: attachment)
            else {
                return .kept
            }
            // Served; noted as revalidated only if it replaced the local record (in
            // `verifiedSharedRecord`): a replacement given up leaves the older record doubted.
            return .replaced(bytes)
        }
    }

    /// The tier's record for `key`, verified, live and stamped with at most the tier's remaining
    /// lifetime, after storing it locally; nil for none, an expired one, or one that is not a
    /// valid record of this key (dropped from the tier).
    private func sharedRecord(_ key: String, keyBytes: UnsafeRawBufferPointer, tier: SharedTierDatabase) -> [UInt8]? {
        guard let attachment = tier.attachment else { return nil }
        let sharedKey = SharedTierKey(collection: space.collection, key: key)
        // Read before asking: an invalidation applied after this must win over what the tier said.
        let seen = tier.changesSeen(space.collection, key)
        guard let shared = attachment.record(for: sharedKey) else { return nil }
        // The record's version is observed by the fleet clock where its envelope is parsed.
        return verifiedSharedRecord(shared, key, keyBytes: keyBytes, replacing: nil, seen: seen, tier: tier, attachment: attachment)
    }

    /// Takes the tier's record of `key` into the local store unless a local record is there
    /// (SharedTierDatabase+Refresh.swift): as a read that missed locally would, with the same
    /// checks, its fill queued off this thread.
    func refreshFromTier(_ key: String, tier: SharedTierDatabase) {
        try? space.withPhysicalKey(key) { keyBytes in
            let absent = try database.run { engine in try engine.withValue(forKey: keyBytes) { $0 == nil } }
            guard absent else { return }
            _ = sharedRecord(key, keyBytes: keyBytes, tier: tier)
        }
    }

    /// `shared`, verified as a local record of `key`, live, and restamped with at most the tier's
    /// remaining lifetime, after storing it locally in place of the record of version `replacing`
    /// (nil: of none); nil for an expired record, or one that is not a valid record of this key
    /// (dropped from the tier through `attachment`, the one that read it: the caller's, so this
    /// takes no lock for it).
    private func verifiedSharedRecord(
        _ shared: SharedTierRecord, _ key: String, keyBytes: UnsafeRawBufferPointer, replacing: SharedTierVersion?,
        seen: SharedTierDatabase.ChangesSeen, tier: SharedTierDatabase, attachment: any SharedTierAttachment
    ) -> [UInt8]? {
        let sharedKey = SharedTierKey(collection: space.collection, key: key)
        let now = reader.now()
        let tierDeadline = shared.remainingLifetime.map { now + TimeBounds.seconds($0) }
        var restamped: [UInt8]? = nil
        let verdict: SharedVerdict = shared.bytes.withUnsafeBytes { record in
            guard let header = RecordHeader(parsing: record) else { return .invalid }
            // Any envelope the tier holds is a version the fleet's clock hears of (a revalidation
            // observed it already: the same time again changes nothing).
            tier.clock.observe(header.storedAt)
            guard header.isFullyChecked, header.checksumMatches(value: record, key: keyBytes) else { return .invalid }
            let deadline = header.deadline(timeToLive: reader.timeToLive)
            if let deadline, deadline <= now { return .expired }
            if let tierDeadline, tierDeadline <= now { return .expired }
            // Never longer locally than in the tier: a shorter remaining lifetime there becomes the
            // record's own deadline here.
            let restamps = tierDeadline.map { tierDeadline in deadline.map { tierDeadline < $0 } ?? true } ?? false
            // Another node's index values section names its own database's index ids: dropped here.
            if restamps || header.indexValuesRange != nil {
                var buffer: [UInt8] = []
                // storedAt is kept: it is the record's version across the fleet (FleetClock.swift).
                let local =
                    restamps
                    ? RecordHeader(storedAt: header.storedAt, expiresAt: tierDeadline, codec: header.codec)
                    : RecordHeader(
                        storedAt: header.storedAt, expiresAt: header.expiresAt, codec: header.codec,
                        neverExpires: header.neverExpires)
                // The rewrite's own assembly: a sealed record is opened and sealed again, since
                // its header is bound to the seal.
                let refusal = Scope.reassemble(
                    record, old: header, header: local, newSection: nil, key: key, keyBytes: keyBytes, reader: reader,
                    encoder: encoder, limit: configuration.recordLengthLimit, keepingIndexValues: false, into: &buffer)
                // One this node cannot open (another key): a miss here, left in the tier for the
                // nodes that can.
                if refusal != nil { return .expired }
                restamped = buffer
            }
            return .live(tags: TagIndex.tags(of: record, header: header), version: header.storedAt)
        }
        switch verdict {
        case .invalid:
            attachment.discard(sharedKey)
            return nil
        case .expired:
            return nil
        case .live(let tags, let version):
            let bytes = restamped ?? shared.bytes
            let replaced = storeLocally(
                bytes, key: key, keyBytes: keyBytes, tags: tags, replacing: replacing, unlessChangedSince: seen, tier: tier)
            // Read from the tier just now: current, whatever its version says of the horizon. A
            // queued fill notes it as it lands, off the reader's path (only then is there a
            // local record to doubt); a replacement, once written. One given up (an invalidation
            // applied meanwhile, the local record changed) is not noted: the older local record
            // may still be there, and noted it would be served as revalidated (a process resumed
            // after the stream was trimmed past it read the new value, then the old one again).
            if replaced { tier.noteValidated(key, in: space) }
            // The restamp keeps storedAt: the version read is the one stored.
            tier.noteFilled(key, in: space, version: version)
            return bytes
        }
    }

    private enum SharedVerdict {
        case invalid, expired
        /// Served and stored, with its tags and version (storedAt).
        case live(tags: [String], version: Double)
    }

    /// Stores a record read from the tier through the write funnel, under the exclusive gate,
    /// only if the local record is still the one of version `replacing` (nil: there is none)
    /// and no invalidation was applied since `seen` (it may have named this key). Best effort:
    /// the caller has its answer either way. Where there was no local record, off the caller's
    /// path (SharedTierFills.swift); a replacement of a doubted one, at once. Returns whether a
    /// replacement was written (false for a queued fill).
    private func storeLocally(
        _ bytes: [UInt8], key: String, keyBytes: UnsafeRawBufferPointer, tags: [String], replacing: SharedTierVersion?,
        unlessChangedSince seen: SharedTierDatabase.ChangesSeen, tier: SharedTierDatabase
    ) -> Bool {
        guard replacing != nil else {
            tier.fills.add(
                SharedTierFills.Fill(
                    scope: self, key: key, bytes: bytes, tags: tags, seen: seen.key,
                    keyHash: seen.keyHash, doubtsBegun: seen.doubtsBegun),
                tier: tier)
            return false
        }
        let space = space
        var written = false
        SharedTierDatabase.applying {
            _ = try? database.commitExclusively { hold in
                guard tier.remoteChanges.load() == seen.remote else { return }
                let unchanged = try hold.engine.withValue(forKey: keyBytes) { record -> Bool in
                    guard let record else { return replacing == nil }
                    return replacing != nil && SharedTierVersion(record: record) == replacing
                }
                guard unchanged else { return }
                let batch = LevelDBWriteBatch()
                bytes.withUnsafeBytes { batch.put(key: keyBytes, value: $0) }
                if !tags.isEmpty { TagIndex.addEntries(for: tags, recordKey: keyBytes, to: batch) }
                try hold.write(.batch(batch), ChangeList(KeyChange(key, in: space, .set)), sync: false)
                written = true
            }
        }
        return written
    }
}
