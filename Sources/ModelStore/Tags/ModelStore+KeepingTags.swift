import Foundation

extension ModelStore {
    /// Optimistic attempts of ``storeKeepingTags(_:forKey:lifetime:metadata:expecting:space:)``
    /// before it encodes under the exclusive write gate.
    static let keepingTagsAttempts = 3

    /// Stores `value` under `key` with the tags of the record it replaces, as that record is
    /// when the write happens; `expected` when there is no record (or one that fails its
    /// checksum, whose tags cannot be trusted). What a read-through `.value` without tags does,
    /// so that a refreshed record is still found by ``removeObjects(taggedWith:)``.
    ///
    /// The record and its tag-index entries go in one atomic write, under the exclusive write
    /// gate: a concurrent write of the key lands either before (its tags are the ones kept) or
    /// after (and replaces ours). The record is encoded before the gate is taken, with
    /// `expected` (the tags of the entry the fetch was given), and written only if the stored
    /// tags still match them byte for byte; otherwise it is encoded again with the stored ones.
    /// After ``keepingTagsAttempts`` such rounds (a writer changing the key's tags all the
    /// time) it is encoded under the gate, so the call always ends.
    ///
    /// The index entries are written even when the tags are unchanged: a removal by tag or a
    /// sweep may have dropped them with a record removed while the fetch ran.
    func storeKeepingTags<Value: Encodable>(
        _ value: Value, forKey key: String, lifetime: TimeInterval?, metadata: (any Codable & Sendable)?,
        expecting expected: [String], space: KeySpace
    ) throws {
        let database = try openDatabase()
        let sync = configuration.syncWrites
        let record = RecordBuffer.take()
        defer { RecordBuffer.putBack(record) }
        var tags = expected
        var attempt = 1
        defer { database.invalidate(key, in: space) }
        while true {
            let underGate = attempt >= Self.keepingTagsAttempts
            if !underGate {
                try encodeRecord(
                    value, forKey: key, lifetime: lifetime, metadata: metadata, tags: tags, space: space,
                    into: &record.bytes)
            }
            let encodedSection = Self.tagsSection(tags)
            let outcome = try space.withPhysicalKey(key) { keyBytes in
                try database.exclusiveWrite { engine -> KeepingTagsOutcome in
                    let stored = try engine.withValue(forKey: keyBytes) { Self.verifiedTagsSection($0, key: keyBytes) }
                    if underGate {
                        if let stored { tags = stored.withUnsafeBytes { TagIndex.tags(in: $0) } }
                        do {
                            try encodeRecord(
                                value, forKey: key, lifetime: lifetime, metadata: metadata, tags: tags, space: space,
                                into: &record.bytes)
                        } catch {
                            // Returned, not thrown: an error thrown here would count as a failed
                            // write and disable the store's writes.
                            return .refused(error)
                        }
                    } else if let stored, stored != encodedSection {
                        return .tagsChanged(stored)
                    }
                    let batch = LevelDBWriteBatch()
                    record.bytes.withUnsafeBytes { batch.put(key: keyBytes, value: $0) }
                    TagIndex.addEntries(for: tags, recordKey: keyBytes, to: batch)
                    try engine.write(batch, sync: sync)
                    return .written
                }
            }
            switch outcome {
            case .written:
                if database.changes.isObserved { database.changes.publish(key, .set, in: space) }
                return
            case .refused(let error):
                throw error
            case .tagsChanged(let stored):
                tags = stored.withUnsafeBytes { TagIndex.tags(in: $0) }
                attempt += 1
            }
        }
    }

    private enum KeepingTagsOutcome {
        case written
        /// The stored record's tags section is not the one encoded: encode again with it.
        case tagsChanged([UInt8])
        case refused(any Error)
    }

    /// The tags section `tags` encode to, empty for none: what ``verifiedTagsSection(_:key:)``
    /// returns for a record stored with them.
    private static func tagsSection(_ tags: [String]) -> [UInt8] {
        var section: [UInt8] = []
        if !tags.isEmpty { TagIndex.appendSection(tags, to: &section) }
        return section
    }

    /// The tags section of a stored record (empty: none), or nil when there is no record or it
    /// fails its checksum (its tags cannot be trusted, and the write replaces it).
    private static func verifiedTagsSection(_ record: UnsafeRawBufferPointer?, key: UnsafeRawBufferPointer) -> [UInt8]? {
        guard let record, let header = RecordHeader(parsing: record), header.checksumMatches(value: record, key: key)
        else { return nil }
        return Array(record[header.tagsRange])
    }
}
