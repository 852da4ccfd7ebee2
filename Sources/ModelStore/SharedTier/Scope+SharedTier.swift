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
            let local = try database.run { engine in
                try engine.withValue(forKey: keyBytes, snapshot: nil) { record -> Result? in
                    guard let record else {
                        missed = true
                        return nil
                    }
                    return try body(keyBytes, record)
                }
            }
            if !missed, let local { return local }
            // What the tier itself stores locally never asks the tier again.
            guard !SharedTierDatabase.isApplying, let shared = sharedRecord(key, keyBytes: keyBytes, tier: tier) else {
                return try body(keyBytes, nil)
            }
            return try shared.withUnsafeBytes { try body(keyBytes, $0) }
        }
    }

    /// The tier's record for `key`, verified, live and stamped with at most the tier's remaining
    /// lifetime, after storing it locally; nil for none, an expired one, or one that is not a
    /// valid record of this key (dropped from the tier).
    private func sharedRecord(_ key: String, keyBytes: UnsafeRawBufferPointer, tier: SharedTierDatabase) -> [UInt8]? {
        guard let attachment = tier.attachment else { return nil }
        let sharedKey = SharedTierKey(collection: space.collection, key: key)
        // Read before asking: an invalidation applied after this must win over what the tier said.
        let seen = tier.remoteChanges.load()
        guard let shared = attachment.record(for: sharedKey) else { return nil }
        let now = reader.now()
        let tierDeadline = shared.remainingLifetime.map { now + TimeBounds.seconds($0) }
        var restamped: [UInt8]? = nil
        let verdict: SharedVerdict = shared.bytes.withUnsafeBytes { record in
            guard let header = RecordHeader(parsing: record), header.isFullyChecked,
                header.checksumMatches(value: record, key: keyBytes)
            else { return .invalid }
            let deadline = header.deadline(timeToLive: reader.timeToLive)
            if let deadline, deadline <= now { return .expired }
            if let tierDeadline, tierDeadline <= now { return .expired }
            // Never longer locally than in the tier: a shorter remaining lifetime there becomes the
            // record's own deadline here.
            let restamps = tierDeadline.map { tierDeadline in deadline.map { tierDeadline < $0 } ?? true } ?? false
            // Another node's index values section names its own database's index ids: dropped here.
            if restamps || header.indexValuesRange != nil {
                var buffer: [UInt8] = []
                let local =
                    restamps
                    ? RecordHeader(storedAt: min(header.storedAt, now), expiresAt: tierDeadline, codec: header.codec)
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
            return .live(tags: TagIndex.tags(of: record, header: header))
        }
        switch verdict {
        case .invalid:
            attachment.discard(sharedKey)
            return nil
        case .expired:
            return nil
        case .live(let tags):
            let bytes = restamped ?? shared.bytes
            storeLocally(bytes, key: key, keyBytes: keyBytes, tags: tags, unlessChangedSince: seen, tier: tier)
            return bytes
        }
    }

    private enum SharedVerdict {
        case invalid, expired
        case live(tags: [String])
    }

    /// Stores a record read from the tier through the write funnel, under the exclusive gate,
    /// only if no local record appeared meanwhile and no invalidation was applied since `seen`
    /// (it may have named this key). Best effort: the caller has its answer either way.
    private func storeLocally(
        _ bytes: [UInt8], key: String, keyBytes: UnsafeRawBufferPointer, tags: [String], unlessChangedSince seen: UInt64,
        tier: SharedTierDatabase
    ) {
        let space = space
        SharedTierDatabase.$isApplying.withValue(true) {
            _ = try? database.commitExclusively { hold in
                guard tier.remoteChanges.load() == seen else { return }
                guard try hold.engine.withValue(forKey: keyBytes, { $0 == nil }) else { return }
                let batch = LevelDBWriteBatch()
                bytes.withUnsafeBytes { batch.put(key: keyBytes, value: $0) }
                if !tags.isEmpty { TagIndex.addEntries(for: tags, recordKey: keyBytes, to: batch) }
                try hold.write(.batch(batch), ChangeList(KeyChange(key, in: space, .set)), sync: false)
            }
        }
    }
}
