import ArgumentParser
import ModelStore

/// `modelstore delete-all --yes`: deletes every database under the root.
struct DeleteAllCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete-all",
        abstract: "Delete every database under the root (requires --yes).",
        discussion: "Files and folders that are not ModelStore databases are left untouched.")

    @Flag(help: "Confirm that every database under the root should be deleted.")
    var yes = false

    @OptionGroup var root: RootOptions

    func run() throws {
        let storeRoot = root.storeRoot
        let names = try storeRoot.databaseNames()
        guard yes else {
            let what =
                names.isEmpty
                ? "no databases yet"
                : Format.count(names.count, "database") + ": "
                    + names.joined(separator: ", ")
            throw CommandFailure(
                status: .usage,
                message: "delete-all deletes every database under \(storeRoot.path) (\(what)). "
                    + "Run it again with --yes to confirm.")
        }
        guard !names.isEmpty else {
            print("No databases under \(storeRoot.path); nothing deleted.")
            return
        }
        try ModelStore.deleteAllDatabases(in: storeRoot.url)
        print(
            "Deleted \(Format.count(names.count, "database")) from \(storeRoot.path): \(names.joined(separator: ", "))."
        )
    }
}
