// MARK: - Indexes as the `modelstore` tool sees them
//
// The tool defines no index (indexers are the program's code): it lists the definitions the
// database records, and queries a built index through its stored definition.

/// One index the database records, as `modelstore indexes` lists it.
@_spi(Inspection)
public struct IndexDescription: Sendable, Hashable, Codable {
    /// The collection; nil for the store's own keys.
    public let collection: String?
    public let name: String
    /// The version the program last defined it with.
    public let version: Int
    /// "built", "building" (queries refuse until the program's next `defineIndex` finishes it),
    /// "dropping" (a drop was interrupted) or "damaged" (the definition fails its checksum).
    public let state: String
    /// The model type the indexer reads, as the program named it.
    public let modelType: String
    /// Records the build indexed, and skipped because they did not decode as the type: what the
    /// build read when the index was defined, not the writes since (see ``entries``).
    public let indexed: Int
    public let skipped: Int
    /// The index's entries now: one per value of each record, every write since the build
    /// included (expired records' entries too, until a sweep removes the records).
    public let entries: Int
    /// The kinds of value the entries hold, in index order (`bool`, `int`, `double`, `date`,
    /// `string`); empty when it holds none.
    public let valueKinds: [String]
}

@_spi(Inspection)
extension ModelStore {
    /// Every index definition the database records, in key order (the store's own keys first,
    /// then collections by name, then indexes by name).
    public func indexDescriptions() throws -> [IndexDescription] {
        let database = try scope.open()
        return try database.run { engine in try Scope.indexDefinitions(in: engine) }.map { space, name, definition in
            guard let definition else {
                return IndexDescription(
                    collection: space.collection, name: name, version: 0, state: "damaged", modelType: "",
                    indexed: 0, skipped: 0, entries: 0, valueKinds: [])
            }
            let state: String
            switch definition.state {
            case .built: state = "built"
            case .building: state = "building"
            case .dropped: state = "dropping"
            }
            let (entries, kinds) = try database.run { engine in try Self.entryCount(ofIndex: definition.id, in: engine) }
            return IndexDescription(
                collection: space.collection, name: name, version: definition.version, state: state,
                modelType: definition.typeName, indexed: definition.indexed, skipped: definition.skipped,
                entries: entries, valueKinds: kinds.sorted { $0.rawValue < $1.rawValue }.map(\.name))
        }
    }

    /// How many entries the index `id` holds, and the kinds of their values, in one pass over them.
    private static func entryCount(ofIndex id: UInt32, in engine: LevelDB) throws -> (Int, Set<IndexValue.Kind>) {
        let range = IndexKeys.entryRange(id, from: nil, to: nil, includingUpper: false)
        let iterator = try engine.makeIterator(snapshot: nil, fillCache: false)
        try iterator.seek(to: range.lowerBound)
        var count = 0
        var kinds: Set<IndexValue.Kind> = []
        var inRange = true
        while inRange {
            let (seen, _) = try iterator.scanForward(limit: 4_096) { key, _ in
                guard !range.isPastEnd(key, reverse: false) else {
                    inRange = false
                    return false
                }
                count += 1
                // Byte 6, after 0xFF, the entry kind and the 4-byte id, is the value's kind.
                if key.count > 6, let kind = IndexValue.Kind(rawValue: key[6]) { kinds.insert(kind) }
                return true
            }
            if seen < 4_096 { break }
        }
        return (count, kinds)
    }
}

@_spi(Inspection)
extension ModelWriter {
    /// ``ModelWriter/keys(where:equals:)`` for a tool: an index this process did not define is
    /// found through the database's definition, and answers once built.
    public func inspectKeys(where index: String, equals value: IndexValue, reverse: Bool = false, limit: Int? = nil) throws
        -> Cursor<String>
    {
        try _scope.indexKeys(
            index, range: { IndexKeys.entryRange($0, from: value, to: value, includingUpper: true) }, reverse: reverse,
            limit: limit, readsStoredDefinitions: true)
    }
}
