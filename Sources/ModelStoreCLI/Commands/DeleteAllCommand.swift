import ArgumentParser
@_spi(Inspection) import ModelStore

/// `modelstore delete-all --yes`: deletes every database under the root.
struct DeleteAllCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete-all",
        abstract: "Delete every database under the root (requires --yes).",
        discussion: "Files and folders that are not ModelStore databases are left untouched. "
            + "Deletions a crash interrupted (.modelstore-trash-* folders) are finished too, and creations a "
            + "crash interrupted (.modelstore-new-* folders whose creating process is gone) are removed.")

    @Flag(help: "Confirm that every database under the root should be deleted.")
    var yes = false

    @OptionGroup var root: RootOptions

    func run() throws {
        let storeRoot = root.storeRoot
        let names = try storeRoot.databaseNames()
        let interrupted = storeRoot.pendingDeletions().count
        let creations = storeRoot.unfinishedCreations().count
        guard yes else {
            let what =
                names.isEmpty
                ? "no databases yet"
                : Format.count(names.count, "database") + ": "
                    + names.joined(separator: ", ")
            throw CommandFailure(
                status: .usage,
                message: "delete-all deletes every database under \(storeRoot.path) (\(what)). "
                    + "Run it again with --yes to confirm: `"
                    + "\(ToolCommand("delete-all", [], options: [.init("yes", nil), .init("root", storeRoot.path)]))`.")
        }
        guard !names.isEmpty || interrupted > 0 || creations > 0 else {
            print("No databases under \(storeRoot.path); nothing deleted.")
            return
        }
        do {
            try Inspector.retryingWhileLocked { try ModelStore.deleteAllDatabases(in: storeRoot.url) }
        } catch {
            // ModelStore tries every database before it throws the first failure, so say
            // which ones are gone and which are still there.
            let failure = CommandFailure(error)
            let remaining = (try? storeRoot.databaseNames()) ?? names
            let deleted = names.filter { !remaining.contains($0) }
            throw CommandFailure(
                status: failure.status,
                message: failure.message + " Deleted: \(list(deleted)); still there: \(list(remaining)).")
        }
        // A creation still in progress in another process is left, so count what went.
        let removedCreations = creations - storeRoot.unfinishedCreations().count
        print(
            "Deleted \(Format.count(names.count, "database")) from \(storeRoot.path)"
                + (names.isEmpty ? "" : ": \(names.joined(separator: ", "))")
                + (interrupted > 0 ? "; finished \(Format.count(interrupted, "interrupted deletion"))" : "")
                + (removedCreations > 0 ? "; removed \(Format.count(removedCreations, "interrupted creation"))" : "")
                + ".")
    }

    private func list(_ names: [String]) -> String {
        names.isEmpty ? "none" : names.joined(separator: ", ")
    }
}
