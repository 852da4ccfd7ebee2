import ArgumentParser
@_spi(Inspection) import ModelStore

/// `--collection NAME` on `keys`, `get`, `dump` and `stats`: work in a named collection
/// instead of the database's default key space (the store's own keys).
struct CollectionOption: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Work in this collection instead of the database's own keys (`modelstore collections NAME` "
                + "lists them).",
            valueName: "collection"))
    var collection: String?

    func validate() throws {
        guard let collection else { return }
        let bytes = collection.utf8.count
        guard bytes >= 1, bytes <= 255, !collection.utf8.contains(0) else {
            throw ValidationError(
                "--collection must be 1 to 255 UTF-8 bytes without NUL; got \(collection.debugDescription).")
        }
    }

    /// The records a command reads in `store`: the collection's, or the store's own.
    func scope(in store: ModelStore) -> any RecordScope {
        collection.map { store.collection($0) } ?? store
    }
}

/// What `keys`, `get`, `dump` and `stats` read: a store's own keys or one collection's. Both
/// answer the same calls, so a command is written once for either.
protocol RecordScope {
    func keys(in range: KeyRange, reverse: Bool, limit: Int?) throws -> Cursor<String>
    func entries<Value: Decodable>(
        _ type: Value.Type, in range: KeyRange, reverse: Bool, limit: Int?
    ) throws -> Cursor<ModelStore.Entry<Value>>
    func count(in range: KeyRange) throws -> Int
    func entry<Value: Decodable>(
        _ type: Value.Type, forKey key: String, includingExpired: Bool
    ) throws -> ModelStore.Entry<Value>?
    func inspectRecord(forKey key: String) throws -> RecordInspection?
    func removeObject(forKey key: String) throws
}

extension RecordScope {
    /// The live record for `key`.
    func entry<Value: Decodable>(_ type: Value.Type, forKey key: String) throws -> ModelStore.Entry<Value>? {
        try entry(type, forKey: key, includingExpired: false)
    }
}

extension ModelStore: RecordScope {}
extension ModelStore.Collection: RecordScope {}

extension ModelStore {
    /// The live records of the whole database: the store's own keys and every collection's,
    /// for `list` and `sweep`, which speak of a database's records.
    func countEveryCollection() throws -> Int {
        try collectionNames().reduce(try count(in: .all)) { total, name in
            total + (try collection(name).count(in: .all))
        }
    }
}
