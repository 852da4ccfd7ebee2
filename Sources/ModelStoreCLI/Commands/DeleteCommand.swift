import ArgumentParser
import ModelStore

/// `modelstore delete NAME`: deletes one database.
struct DeleteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Delete a database and its files.",
        discussion: "Only folders carrying ModelStore's marker are deleted; anything else is left untouched.")

    @Argument(help: "The database's name.")
    var name: String

    @OptionGroup var root: RootOptions

    func run() throws {
        let storeRoot = root.storeRoot
        try root.inspector.requireDatabase(name)
        let bytes = storeRoot.diskUsage(of: name).bytes
        try Inspector.retryingWhileLocked { try ModelStore.deleteDatabase(named: name, in: storeRoot.url) }
        print("Deleted database \(name) (\(Format.bytes(bytes))) from \(storeRoot.path).")
    }
}
