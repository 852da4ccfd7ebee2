import ArgumentParser
@_spi(Inspection) import ModelStore

/// `modelstore remove NAME KEY [--collection C]`: removes one record, whatever its state: a
/// record that fails its checksum, or cannot be decoded at all, is removed like any other.
struct RemoveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove",
        abstract: "Remove the record stored under a key (for example one that fails its checksum).",
        discussion: """
            Only that record is removed: the rest of the database, and the same key in other \
            collections, are left as they are. The record is removed whether it is live, expired \
            or damaged; its bytes are not read. A key that starts with a dash goes after `--`, \
            with the options before it: modelstore remove --root PATH -- NAME -KEY.
            """)

    @Argument(help: "The database's name.")
    var name: String

    @Argument(help: "The key.")
    var key: String

    @OptionGroup var collection: CollectionOption
    @OptionGroup var root: RootOptions

    func run() throws {
        let store = try root.inspector.writable(name)
        defer { try? store.close() }
        let scope = collection.scope(in: store)
        guard try scope.holdsRecord(forKey: key) else {
            throw CommandFailure(
                status: .notFound,
                message: "no record with key \(key.debugDescription) in \(place); nothing was removed. Run `"
                    + "\(keysCommand)` to see the keys.")
        }
        try scope.removeObject(forKey: key)
        print("Removed the record for key \(key.debugDescription) from \(place).")
    }

    /// Where the key was looked for, for messages.
    private var place: String {
        let database = "database \(name.debugDescription)"
        return collection.collection.map { "collection \($0.debugDescription) of \(database)" } ?? database
    }

    /// The command that lists the keys where this one was looked for.
    private var keysCommand: ToolCommand {
        .keys(name, collection: collection.collection, root: root.storeRoot.path)
    }
}

extension RecordScope {
    /// Whether a record is stored for `key`, whatever its state: live, expired, damaged, or with
    /// an envelope that does not parse.
    func holdsRecord(forKey key: String) throws -> Bool {
        do {
            return try inspectRecord(forKey: key) != nil
        } catch ModelStoreError.decodingFailed, ModelStoreError.corrupted {
            return true  // its envelope cannot be read: a record is there all the same
        }
    }
}
