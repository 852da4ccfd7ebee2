public import Foundation

extension ModelStore {
    /// Stores `value` under `key` with tags, so that ``removeObjects(taggedWith:)`` can remove
    /// every record written with one of them at once.
    ///
    /// ```swift
    /// try store.set(user, forKey: "user:42", tags: ["team:7", "org:1"])
    /// try store.set(user, forKey: "user:42", expiresAfter: 300, metadata: info, tags: ["team:7"])
    /// let removed = try store.removeObjects(taggedWith: "team:7")
    /// ```
    ///
    /// The tags are stored in the record's envelope, and one tag-index entry per tag is written
    /// in the same atomic write as the record. A later write of the key replaces the tags with
    /// its own (none for a plain ``set(_:forKey:)``).
    ///
    /// - Parameters:
    ///   - value: The model to store.
    ///   - key: The key to store it under.
    ///   - lifetime: Seconds until the record expires, positive and finite; nil: the store's policy.
    ///   - metadata: Metadata to keep beside the model; nil: none.
    ///   - tags: 1 to 1,024 UTF-8 bytes each; repeats are stored once; compared by bytes.
    /// - Throws: ``ModelStoreError/invalidTag(tag:reason:)`` before anything is written; otherwise
    ///   as ``set(_:forKey:expiresAfter:metadata:)-44ybp``.
    public func set<Value: Encodable>(
        _ value: Value, forKey key: String, expiresAfter lifetime: TimeInterval? = nil,
        metadata: (any Codable & Sendable)? = nil, tags: [String]
    ) throws {
        if let lifetime { try UpdatePolicy.validate(lifetime: lifetime, what: "record lifetime") }
        try storeTagged(value, forKey: key, lifetime: lifetime, metadata: metadata, tags: tags, space: .default)
    }

    /// A tagged write in `space`: the record and its index entries in one atomic write.
    func storeTagged<Value: Encodable>(
        _ value: Value, forKey key: String, lifetime: TimeInterval?, metadata: (any Codable & Sendable)?,
        tags: [String], space: KeySpace
    ) throws {
        let database = try openDatabase()
        let tags = try TagIndex.validated(tags)
        let batch = LevelDBWriteBatch()
        var buffer: [UInt8] = []
        try addTaggedRecord(
            value, forKey: key, lifetime: lifetime, metadata: metadata, tags: tags, space: space, to: batch,
            buffer: &buffer)
        try apply(
            batch, keys: [key], kinds: nil, spaces: space.isDefault ? nil : [space], in: database,
            sync: configuration.syncWrites)
    }

    /// Adds the record and its tag-index entries to `batch`.
    func addTaggedRecord<Value: Encodable>(
        _ value: Value, forKey key: String, lifetime: TimeInterval?, metadata: (any Codable & Sendable)?,
        tags: [String], space: KeySpace = .default, to batch: LevelDBWriteBatch, buffer: inout [UInt8]
    ) throws {
        try encodeRecord(
            value, forKey: key, lifetime: lifetime, metadata: metadata, tags: tags, space: space, into: &buffer)
        try space.withPhysicalKey(key) { keyBytes in
            buffer.withUnsafeBytes { batch.put(key: keyBytes, value: $0) }
            TagIndex.addEntries(for: tags, recordKey: keyBytes, to: batch)
        }
    }

    /// Removes every record written with `tag` (whose current version still carries it) and
    /// returns how many live records it removed; expired ones are removed too, not counted.
    ///
    /// ```swift
    /// try store.set(user, forKey: "user:42", tags: ["team:7"])
    /// let removed = try store.removeObjects(taggedWith: "team:7")   // 1
    /// ```
    ///
    /// After it returns, no read, cursor, count or snapshot taken afterwards sees a record that
    /// carried the tag; records written later with the tag are unaffected. Records written with
    /// the tag while the call runs may or may not be removed. ``changes(bufferingPolicy:)``
    /// reports `.removed` for live records and `.expired` for expired ones.
    ///
    /// It walks the tag's index entries in chunks of 1,000, each read and removed under the
    /// exclusive write gate (so a record a concurrent writer replaces between the read and the
    /// removal is never deleted by mistake), in one atomic write per chunk. Entries left by
    /// records since overwritten or removed are dropped on the way.
    ///
    /// - Complexity: O(*n*) in the tag's index entries; memory stays bounded.
    /// - Throws: ``ModelStoreError/invalidTag(tag:reason:)``; read and write errors as
    ///   ``removeObjects(forKeys:)``.
    @discardableResult
    public func removeObjects(taggedWith tag: String) throws -> Int {
        let database = try openDatabase()
        _ = try TagIndex.validated([tag])
        let prefix = TagIndex.prefix(of: tag)
        let sync = configuration.syncWrites
        let timeToLive = reader.timeToLive
        let chunkSize = 1_000
        var removedLive = 0
        var resumeKey = prefix
        while true {
            let now = reader.now()
            let observed = database.changes.isObserved
            typealias Chunk = (removed: [Change], spaces: [KeySpace], live: Int, entries: Int, last: [UInt8]?)
            let chunk = try database.exclusiveWrite { engine -> Chunk in
                let batch = LevelDBWriteBatch()
                var removed: [Change] = []
                var spaces: [KeySpace] = []
                var live = 0
                var entries = 0
                var last: [UInt8]? = nil
                let iterator = try engine.makeIterator(snapshot: nil, fillCache: false)
                try iterator.seek(to: resumeKey)
                while entries < chunkSize {
                    let entry = try iterator.withCurrent { key, _ -> [UInt8]? in
                        key.starts(with: prefix) ? Array(key) : nil
                    }
                    guard let entry = entry ?? nil else { break }
                    entries += 1
                    last = entry
                    entry.withUnsafeBytes { batch.delete(key: $0) }
                    let recordKey = Array(entry[prefix.count...])
                    let state = try recordKey.withUnsafeBytes { recordKeyBytes -> RecordState? in
                        try engine.withValue(forKey: recordKeyBytes) { record -> RecordState? in
                            // A record that fails its checksum is left for reads to report as
                            // damaged: its tags section cannot be trusted.
                            guard let record, let header = RecordHeader(parsing: record),
                                header.checksumMatches(value: record, key: recordKeyBytes)
                            else { return nil }
                            let section = UnsafeRawBufferPointer(rebasing: record[header.tagsRange])
                            guard TagIndex.section(section, contains: tag) else { return nil }
                            return header.isExpired(now: now, timeToLive: timeToLive) ? .expired : .live
                        }
                    }
                    if let state, let (space, userKey) = recordKey.withUnsafeBytes({ KeySpace.split($0) }) {
                        recordKey.withUnsafeBytes { batch.delete(key: $0) }
                        if state == .live { live += 1 }
                        let kind: Change.Kind = state == .live ? .removed : .expired
                        removed.append(Change(key: userKey, kind: kind, collection: space.collection))
                        spaces.append(space)
                    }
                    try iterator.next()
                }
                if batch.count > 0 { try engine.write(batch, sync: sync) }
                return (removed, spaces, live, entries, last)
            }
            database.invalidate(chunk.removed.map(\.key), spaces: chunk.spaces)
            if observed, !chunk.removed.isEmpty { database.changes.publish(chunk.removed) }
            removedLive += chunk.live
            guard chunk.entries == chunkSize, let last = chunk.last else { return removedLive }
            resumeKey = last + [0]  // the next key after `last`
        }
    }
}

extension ModelStore.WriteBatch {
    /// Adds storing `value` under `key` with tags (see ``ModelStore/set(_:forKey:expiresAfter:metadata:tags:)``):
    /// the record and its tag-index entries are written with the rest of the batch, atomically.
    ///
    /// - Throws: ``ModelStoreError/invalidTag(tag:reason:)``; otherwise as ``set(_:forKey:)``.
    public func set<Value: Encodable>(
        _ value: Value, forKey key: String, expiresAfter lifetime: TimeInterval? = nil,
        metadata: (any Codable & Sendable)? = nil, tags: [String]
    ) throws {
        if let lifetime { try UpdatePolicy.validate(lifetime: lifetime, what: "record lifetime") }
        try addTagged(value, forKey: key, lifetime: lifetime, metadata: metadata, tags: try TagIndex.validated(tags))
    }

    /// Adds storing `value` under `key` in `collection` with tags: the record and its tag-index
    /// entries are written with the rest of the batch, atomically. Without `lifetime`, the
    /// collection's policy applies.
    ///
    /// - Throws: ``ModelStoreError/invalidTag(tag:reason:)``; otherwise as ``set(_:forKey:in:)-(_,_,String)``.
    public func set<Value: Encodable>(
        _ value: Value, forKey key: String, in collection: ModelStore.Collection,
        expiresAfter lifetime: TimeInterval? = nil, metadata: (any Codable & Sendable)? = nil, tags: [String]
    ) throws {
        if let lifetime { try UpdatePolicy.validate(lifetime: lifetime, what: "record lifetime") }
        let target = try collection.checked
        try addTagged(
            value, forKey: key, lifetime: lifetime ?? target.lifetime, metadata: metadata,
            tags: try TagIndex.validated(tags), space: target.space)
    }
}

extension ModelStore.Collection {
    /// Stores `value` under `key` in this collection with tags (see
    /// ``ModelStore/set(_:forKey:expiresAfter:metadata:tags:)``); ``ModelStore/removeObjects(taggedWith:)``
    /// removes tagged records of every collection. Without `lifetime`, the collection's policy applies.
    ///
    /// ```swift
    /// try users.set(user, forKey: "42", tags: ["team:7"])
    /// ```
    ///
    /// - Throws: ``ModelStoreError/invalidTag(tag:reason:)``; otherwise as ``set(_:forKey:)``.
    public func set<Value: Encodable>(
        _ value: Value, forKey key: String, expiresAfter lifetime: TimeInterval? = nil,
        metadata: (any Codable & Sendable)? = nil, tags: [String]
    ) throws {
        if let lifetime { try UpdatePolicy.validate(lifetime: lifetime, what: "record lifetime") }
        let target = try checked
        try store.storeTagged(
            value, forKey: key, lifetime: lifetime ?? target.lifetime, metadata: metadata, tags: tags,
            space: target.space)
    }
}
