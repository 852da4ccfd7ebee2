import ArgumentParser
import ModelStore

/// `modelstore repair NAME`: runs LevelDB's repair on a closed database, under the store's lock.
struct RepairCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "repair",
        abstract: "Repair a damaged database and report what was recovered.",
        discussion: """
            The database must not be open in another process. Repair keeps every record it can \
            read and drops damaged log records rather than returning wrong values; back up the \
            folder first if its contents matter.
            """)

    @Argument(help: "The database's name.")
    var name: String

    @OptionGroup var root: RootOptions

    func run() throws {
        let storeRoot = root.storeRoot
        try root.inspector.requireDatabase(name)
        let report = try Progress.spinning("Repairing \(name)") {
            try Inspector.retryingWhileLocked { try ModelStore.repair(named: name, in: storeRoot.url) }
        }
        print(report.description)
    }
}
