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
    /// Records the build indexed, and skipped because they did not decode as the type.
    public let indexed: Int
    public let skipped: Int
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
                    indexed: 0, skipped: 0)
            }
            let state: String
            switch definition.state {
            case .built: state = "built"
            case .building: state = "building"
            case .dropped: state = "dropping"
            }
            return IndexDescription(
                collection: space.collection, name: name, version: definition.version, state: state,
                modelType: definition.typeName, indexed: definition.indexed, skipped: definition.skipped)
        }
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
