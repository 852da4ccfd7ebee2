extension Scope {
    /// Removes every record written with `tag` whose current version still carries it, in every
    /// collection of the database, and returns how many were live; expired ones go too, reported
    /// `.expired`.
    ///
    /// The chunked removal loop walks the tag's index entries, each chunk under the exclusive
    /// write gate, so a record a concurrent writer replaces between the read and the removal is
    /// never deleted by mistake. Each entry is dropped whether or not its record still carries
    /// the tag (an entry left by an overwrite or a removal). A record that fails its checksum, or
    /// in an encrypting store whose seal (which binds its tags) does not hold, is left for reads
    /// to report as damaged: its tags section cannot be trusted.
    ///
    /// With a shared tier, the removal takes a version from the database's fleet clock before it
    /// starts and removes only the records with the tag stored at or before it (`storedAt`, their
    /// version), here and, through the tier, on every node and in the tier itself: a record
    /// written with the tag while the removal runs is newer, and stays everywhere.
    /// `notNewerThan` is such a removal's version, as another node's invalidation names it (the
    /// tier applying it publishes nothing back).
    func removeObjects(taggedWith tag: String, notNewerThan bound: SharedTierVersion? = nil) throws -> Int {
        let database = try open()
        _ = try TagIndex.validated([tag])
        return try database.asBulkRemoval {
            let now = reader.now()
            var issued = bound
            if issued == nil, let tier = database.sharedTier { issued = SharedTierVersion(time: tier.clock.issue(now)) }
            let version = issued
            let prefix = TagIndex.prefix(of: tag)
            let reader = reader
            let timeToLive = reader.timeToLive
            var live = 0
            try database.removeInChunks(
                KeyRange(lowerBound: prefix, upperBound: KeyRange.successor(ofPrefix: prefix)), sync: configuration.syncWrites
            ) { entry, _, chunk in
                let recordKey = UnsafeRawBufferPointer(rebasing: entry[prefix.count...])
                let state = try chunk.engine.withValue(forKey: recordKey) { record -> TaggedState? in
                    guard let record, let header = RecordHeader(parsing: record),
                        header.checksumMatches(value: record, key: recordKey)
                    else { return nil }
                    guard TagIndex.section(UnsafeRawBufferPointer(rebasing: record[header.tagsRange]), contains: tag),
                        reader.sealVouches(record, keyBytes: recordKey)
                    else {
                        return nil
                    }
                    // Written after the removal's version: it stays, and so does its entry.
                    if let version, header.storedAt > version.time { return .newer }
                    return header.isExpired(now: now, timeToLive: timeToLive) ? .expired : .live
                }
                if state == .newer { return }
                chunk.remove(entry)
                guard let state, let (space, key) = KeySpace.split(recordKey) else { return }
                if state == .live { live += 1 }
                // Always reported: the keys are forgotten in memory whatever caches the database keeps.
                chunk.remove(recordKey, reporting: KeyChange(key, in: space, state == .live ? .removed : .expired))
            }
            database.didRemove(tag: tag, version: version)
            return live
        }
    }
}

/// What a removal by tag found under one index entry.
private enum TaggedState {
    case live, expired
    /// Stored after the removal's version (a shared tier's): not removed.
    case newer
}

extension OpenDatabase {
    /// Drops tag-index entries whose record is gone (removed, expired and swept) or no longer
    /// carries the tag (overwritten without it), so the index stays as large as the tagged records
    /// it describes: sweeps call it after removing records. Through the chunked removal loop, so
    /// an entry a concurrent tagged write has just written with its record is never dropped.
    ///
    /// - Complexity: O(*n*) in the tag index's entries; nothing when no record was ever tagged.
    func pruneTagIndex(sync: Bool) throws(ModelStoreError) {
        let indexPrefix: [UInt8] = [TagIndex.systemPrefix, TagIndex.kind]
        let range = KeyRange(lowerBound: indexPrefix, upperBound: KeyRange.successor(ofPrefix: indexPrefix))
        try removeInChunks(range, sync: sync) { entry, _, chunk in
            if try !TagIndex.entryIsCurrent(entry, engine: chunk.engine) { chunk.remove(entry) }
        }
    }
}
