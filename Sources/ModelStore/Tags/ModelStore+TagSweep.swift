extension ModelStore {
    /// Drops tag-index entries whose record is gone (removed, expired and swept) or no longer
    /// carries the tag (overwritten without it), so the index stays as large as the tagged
    /// records it describes. Sweeps call it after removing records; returns how many entries
    /// it dropped.
    ///
    /// Chunks of 1,000 entries, each read and pruned under the exclusive write gate, so an entry
    /// a concurrent tagged `set` has just written (with its record) is never dropped.
    ///
    /// - Complexity: O(*n*) in the tag index's entries; nothing when no record was ever tagged.
    @discardableResult
    func pruneTagIndex(in database: OpenDatabase) throws -> Int {
        let indexPrefix: [UInt8] = [TagIndex.systemPrefix, TagIndex.kind]
        let sync = configuration.syncWrites
        let chunkSize = 1_000
        var pruned = 0
        var resumeKey = indexPrefix
        while true {
            let (dropped, scanned, last) = try database.exclusiveWrite { engine -> (Int, Int, [UInt8]?) in
                let batch = LevelDBWriteBatch()
                var scanned = 0
                var last: [UInt8]? = nil
                let iterator = try engine.makeIterator(snapshot: nil, fillCache: false)
                try iterator.seek(to: resumeKey)
                while scanned < chunkSize {
                    let entry = try iterator.withCurrent { key, _ -> [UInt8]? in
                        key.starts(with: indexPrefix) ? Array(key) : nil
                    }
                    guard let entry = entry ?? nil else { break }
                    scanned += 1
                    last = entry
                    if try !Self.entryIsCurrent(entry, engine: engine) {
                        entry.withUnsafeBytes { batch.delete(key: $0) }
                    }
                    try iterator.next()
                }
                let dropped = batch.count
                if dropped > 0 { try engine.write(batch, sync: sync) }
                return (dropped, scanned, last)
            }
            pruned += dropped
            guard scanned == chunkSize, let last else { return pruned }
            resumeKey = last + [0]
        }
    }

    /// Whether a tag-index entry still describes a record that carries its tag. A damaged
    /// entry is not current; a record that fails its checksum keeps its entry (reads report it).
    private static func entryIsCurrent(_ entry: [UInt8], engine: LevelDB) throws -> Bool {
        try entry.withUnsafeBytes { bytes -> Bool in
            var offset = 2
            guard let tagLength = LEB128.read(bytes, at: &offset), offset + tagLength <= bytes.count else {
                return false
            }
            let tagBytes = UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + tagLength)])
            let tag = String(decoding: tagBytes, as: UTF8.self)
            let recordKey = UnsafeRawBufferPointer(rebasing: bytes[(offset + tagLength)...])
            return try engine.withValue(forKey: recordKey) { record -> Bool in
                guard let record else { return false }
                guard let header = RecordHeader(parsing: record), header.checksumMatches(value: record, key: recordKey)
                else { return true }
                return TagIndex.section(UnsafeRawBufferPointer(rebasing: record[header.tagsRange]), contains: tag)
            }
        }
    }
}
