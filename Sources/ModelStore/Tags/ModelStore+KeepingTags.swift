import Foundation

extension ModelStore {
    /// Stores `value` under `key` with the tags of the record it replaces, as that record is
    /// when the write happens; `expected` when there is no record (or one that fails its
    /// checksum, whose tags cannot be trusted). What a read-through `.value` without tags does,
    /// so that a refreshed record is still found by ``removeObjects(taggedWith:)``.
    ///
    /// The record and its tag-index entries go in one atomic write, under the exclusive write
    /// gate, and the model is encoded before the gate is taken (no user code runs under it):
    ///
    /// 1. Encoded with `expected` (the tags of the entry the fetch was given), it is written if
    ///    the stored record's tags section is still the same, byte for byte.
    /// 2. Otherwise a write during the fetch changed them: it is encoded again with the stored
    ///    tags, and written if they still hold.
    /// 3. If they changed again, a write that ran while this one did replaced the tags: that
    ///    write is taken as the later of the two, and this one writes nothing (the fetched model
    ///    would have been replaced by it anyway). The call still ends, whatever other writers do.
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
        defer { database.invalidate(key, in: space) }
        var tags = expected
        for attempt in 1...2 {
            try encodeRecord(
                value, forKey: key, lifetime: lifetime, metadata: metadata, tags: tags, space: space,
                into: &record.bytes)
            let encodedSection = Self.tagsSection(tags)
            let stored = try space.withPhysicalKey(key) { keyBytes in
                try database.exclusiveWrite { engine -> [UInt8]? in
                    let stored = try engine.withValue(forKey: keyBytes) { Self.verifiedTagsSection($0, key: keyBytes) }
                    if let stored, stored != encodedSection { return stored }
                    let batch = LevelDBWriteBatch()
                    record.bytes.withUnsafeBytes { batch.put(key: keyBytes, value: $0) }
                    TagIndex.addEntries(for: tags, recordKey: keyBytes, to: batch)
                    try engine.write(batch, sync: sync)
                    return nil
                }
            }
            guard let stored else {
                if database.changes.isObserved { database.changes.publish(key, .set, in: space) }
                return
            }
            if attempt == 1 { tags = stored.withUnsafeBytes { TagIndex.tags(in: $0) } }
        }
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
    private static func verifiedTagsSection(
        _ record: UnsafeRawBufferPointer?, key: UnsafeRawBufferPointer
    ) -> [UInt8]? {
        guard let record, let header = RecordHeader(parsing: record), header.checksumMatches(value: record, key: key)
        else { return nil }
        return Array(record[header.tagsRange])
    }
}
