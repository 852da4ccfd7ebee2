import Foundation

// MARK: - Queries on an index
//
// A query walks the index's entries for a value or a range of values, in index order then key
// order, on a snapshot (the scope's, or one taken when the cursor is made), and reads each
// entry's record through the same snapshot: expired records (judged as the scope's reads judge
// them) are skipped, never returned nor counted, never removed.

extension Scope {
    /// A cursor over the records of the index `name` whose entries lie in `range` (given the
    /// index's id), each turned into an element by `extract` (nil: skipped).
    func indexCursor<Element>(
        _ name: String, range: (UInt32) -> KeyRange, reverse: Bool, limit: Int?, readsStoredDefinitions: Bool = false,
        _ extract: @escaping (
            _ key: UnsafeRawBufferPointer, _ record: UnsafeRawBufferPointer, _ reader: RecordReader, _ now: Double
        ) throws -> Element?
    ) throws -> Cursor<Element> {
        let database = try open()
        try DefinedIndex.validate(name: name)
        let snapshot = try self.snapshot ?? database.run { try $0.makeSnapshot() }
        let id: UInt32
        if let index = database.indexes.index(named: name, in: space) {
            guard index.isBuilt else { throw ModelStoreError.indexNotBuilt(index: name, collection: space.collection) }
            id = index.id
        } else if readsStoredDefinitions {
            // A tool: the database's own record says whether the index is built, and where.
            let key = IndexKeys.definitionKey(name: name, in: space)
            let path = database.path
            guard let definition = try database.run({ try IndexDefinition.read(key: key, from: $0, snapshot: snapshot, path: path) }),
                definition.state != .dropped
            else { throw ModelStoreError.indexNotDefined(index: name, collection: space.collection) }
            guard definition.state == .built else {
                throw ModelStoreError.indexNotBuilt(index: name, collection: space.collection)
            }
            id = definition.id
        } else {
            throw ModelStoreError.indexNotDefined(index: name, collection: space.collection)
        }
        let prefix = space.prefix
        let reader = reader
        let now = reader.now()
        let engine = database.engine
        return try Cursor(
            database: database, snapshot: snapshot, range: range(id), reverse: reverse, limit: limit
        ) { entryKey, _ in
            guard let userKey = IndexKeys.userKey(ofEntry: entryKey) else { return nil }
            var physical = prefix
            physical.append(contentsOf: userKey)
            return try physical.withUnsafeBytes { keyBytes in
                // An entry without its record cannot come from a write (both go in one batch); a
                // repair that lost the record, or a removal by another LevelDB client, can leave
                // one: it is skipped.
                try engine.withValue(forKey: keyBytes, snapshot: snapshot) { record in
                    guard let record, Self.recordHolds(entryKey, record: record, keyBytes: keyBytes) else { return nil }
                    return try extract(keyBytes, record, reader, now)
                }
            }
        }
    }

    /// Whether the record's own index values do not contradict the entry `entryKey`: its
    /// section, when it has a part for the entry's index, holds the entry's value. An entry left
    /// by a removal outside the write funnel (another LevelDB client, a release from before
    /// indexes), whose key was written again since, names a value the record no longer has. A record without a part for the index (a
    /// build indexed it, or an earlier release wrote it) is judged by its entries alone.
    static func recordHolds(
        _ entryKey: UnsafeRawBufferPointer, record: UnsafeRawBufferPointer, keyBytes: UnsafeRawBufferPointer
    ) -> Bool {
        guard entryKey.count > 6, let length = IndexValue.encodedLength(in: entryKey, at: 6),
            let section = IndexParts.section(ofRecord: record, verifiedUnder: keyBytes)
        else { return true }
        let id = UInt32(entryKey[2]) << 24 | UInt32(entryKey[3]) << 16 | UInt32(entryKey[4]) << 8 | UInt32(entryKey[5])
        guard let part = IndexParts.part(id, in: section) else { return true }
        return IndexParts.contains(part, UnsafeRawBufferPointer(rebasing: entryKey[6..<(6 + length)]))
    }

    /// The physical key's user key in this scope's space.
    private static func liveKey(
        _ keyBytes: UnsafeRawBufferPointer, _ record: UnsafeRawBufferPointer, reader: RecordReader, now: Double,
        space: KeySpace
    ) -> String? {
        reader.state(record, key: keyBytes, now: now) == .live
            ? space.key(fromPhysical: keyBytes) : nil
    }

    func indexKeys(
        _ name: String, range: @escaping (UInt32) -> KeyRange, reverse: Bool, limit: Int?, readsStoredDefinitions: Bool = false
    ) throws -> Cursor<String> {
        let space = space
        return try indexCursor(
            name, range: range, reverse: reverse, limit: limit, readsStoredDefinitions: readsStoredDefinitions
        ) { keyBytes, record, reader, now in
            Self.liveKey(keyBytes, record, reader: reader, now: now, space: space)
        }
    }

    func indexEntries<Value: Decodable>(
        _ type: Value.Type, _ name: String, range: @escaping (UInt32) -> KeyRange, reverse: Bool, limit: Int?
    ) throws -> Cursor<ModelStore.Entry<Value>> {
        let space = space
        return try indexCursor(name, range: range, reverse: reverse, limit: limit) { keyBytes, record, reader, now in
            let key = space.key(fromPhysical: keyBytes)
            let header = try reader.header(record, key: key, keyBytes: keyBytes, type: type)
            guard !header.isExpired(now: now, timeToLive: reader.timeToLive) else {
                try reader.checkExpiredEnvelope(header, record: record, key: key, keyBytes: keyBytes)
                return nil
            }
            return try reader.opened(record, header: header, key: key, keyBytes: keyBytes) { record, header in
                try reader.entry(type, key: key, header: header, record: record)
            }
        }
    }

    func indexCount(_ name: String, range: @escaping (UInt32) -> KeyRange) throws -> Int {
        let cursor = try indexCursor(name, range: range, reverse: false, limit: nil) { keyBytes, record, reader, now in
            reader.state(record, key: keyBytes, now: now) == .live ? () : nil
        }
        var count = 0
        while try cursor.next() != nil { count += 1 }
        return count
    }
}
