import Logging

// MARK: - The outbox, as the tier reads it
//
// The tier publishes from the outbox (FleetOutbox.swift): at attach, every key and bulk removal
// it holds; after each local write, the keys that write named. What it publishes for a key is
// read when it publishes: the record stored now, or the removal's time. Once the tier applied a
// publication it says so, and the entry goes unless a newer write of the key replaced it.

extension Scope {
    /// The time a write of this scope stores (`storedAt`): the clock's reading; with a shared
    /// tier, a version from the database's fleet clock (FleetClock.swift).
    @inline(__always)
    func writeTime() -> Double {
        guard let tier = database.sharedTier else { return reader.now() }
        return tier.clock.issue(reader.now())
    }
}

extension SharedTierDatabase {
    /// What the outbox owes the tier for `key`: the record stored now and its version, or the
    /// removal's version; nil when nothing is owed (published already, never written here) or
    /// the record it owes is no longer live (expired or evicted since: a local decision, never
    /// published; ``didPublish(_:)`` with a nil version lets the entry go).
    public func pendingPublication(for key: SharedTierKey) -> SharedTierPublication? {
        guard let scope, let space = Self.space(key.collection) else { return nil }
        let owed: [UInt8]?? = try? space.withPhysicalKey(key.key) { keyBytes in
            try scope.database.run { engine in
                try FleetOutbox.key(of: keyBytes).withUnsafeBytes { outboxKey in
                    try engine.withValue(forKey: outboxKey) { $0.map { Array($0) } }
                }
            }
        }
        guard let owed = owed ?? nil else { return nil }
        if let time = owed.withUnsafeBytes({ FleetOutbox.removalTime($0) }) {
            return .removed(SharedTierVersion(time: time))
        }
        guard let record = currentRecord(for: key),
            let version = record.bytes.withUnsafeBytes({ SharedTierVersion(record: $0) })
        else { return nil }
        return .set(record, version)
    }

    /// The tier applied these publications (or found a newer version there): each key's outbox
    /// entry goes if it still owes what was published (`version`; nil: nothing was owed but an
    /// entry whose record is gone). An entry a newer write replaced stays.
    public func didPublish(_ published: [(key: SharedTierKey, version: SharedTierVersion?)]) {
        guard let scope, !published.isEmpty else { return }
        let reader = scope.reader
        Self.applying {
            do {
                try scope.database.commitExclusively { hold in
                    let batch = LevelDBWriteBatch()
                    for (key, version) in published {
                        guard let space = Self.space(key.collection) else { continue }
                        try space.withPhysicalKey(key.key) { keyBytes in
                            let outboxKey = FleetOutbox.key(of: keyBytes)
                            let settled = try outboxKey.withUnsafeBytes { outboxKey in try hold.engine.withValue(forKey: outboxKey) { owed -> Bool in
                                guard let owed else { return false }
                                if let time = FleetOutbox.removalTime(owed) { return version?.time == time }
                                // A set: settled if the record stored now is the version published, or
                                // (nil) if no live record is left to publish.
                                return try hold.engine.withValue(forKey: keyBytes) { record in
                                    guard let record else { return version == nil }
                                    guard let version else {
                                        guard let header = RecordHeader(parsing: record) else { return true }
                                        return header.isExpired(now: reader.now(), timeToLive: reader.timeToLive)
                                    }
                                    return SharedTierVersion(record: record) == version
                                }
                            } }
                            if settled { outboxKey.withUnsafeBytes { batch.delete(key: $0) } }
                        }
                    }
                    if batch.count > 0 { try hold.write(.batch(batch), ChangeList(), sync: false) }
                }
            } catch {
                // Kept: published once more later, which the tier's versions make harmless.
                scope.database.logger.warning(
                    "Could not clear the shared tier's outbox", metadata: ["database": "\(scope.database.path)", "error": "\(error)"])
            }
        }
    }

    /// Every key the outbox owes the tier (at attach: what a killed process left unpublished).
    public func pendingKeys() -> [SharedTierKey] {
        var keys: [SharedTierKey] = []
        walk(FleetOutbox.keyRange) { key, _ in
            let recordKey = UnsafeRawBufferPointer(rebasing: key[2...])
            if let split = KeySpace.split(recordKey) {
                keys.append(SharedTierKey(collection: split.space.collection, key: split.key))
            }
        }
        return keys
    }

    /// Every bulk removal the outbox owes the tier, oldest first.
    public func pendingBulkRemovals() -> [SharedTierInvalidation] {
        var removals: [SharedTierInvalidation] = []
        walk(FleetOutbox.bulkRange) { _, value in
            if let removal = FleetOutbox.decode(value) { removals.append(removal) }
        }
        return removals
    }

    /// The tier applied `removal`: its outbox entries go (and any that cannot be read).
    public func didPublish(bulk removal: SharedTierInvalidation) {
        guard let scope else { return }
        var settled: [[UInt8]] = []
        walk(FleetOutbox.bulkRange) { key, value in
            let decoded = FleetOutbox.decode(value)
            if decoded == nil || decoded == removal { settled.append(Array(key)) }
        }
        guard !settled.isEmpty else { return }
        let batch = LevelDBWriteBatch()
        for key in settled { key.withUnsafeBytes { batch.delete(key: $0) } }
        Self.applying {
            _ = try? scope.database.commit(.batch(batch), ChangeList(), sync: false)
        }
    }

    /// Calls `body` with every entry in `range` (a system range: no user record).
    private func walk(_ range: KeyRange, _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> Void) {
        guard let scope else { return }
        _ = try? scope.database.run { engine in
            let iterator = try engine.makeIterator(snapshot: nil, fillCache: false)
            try iterator.seek(to: range.lowerBound)
            while true {
                let more = try iterator.withCurrent { key, value -> Bool in
                    guard let upper = range.upperBound, key.lexicographicallyPrecedes(upper) else { return false }
                    body(key, value)
                    return true
                }
                guard more == true else { return }
                try iterator.next()
            }
        }
    }
}
