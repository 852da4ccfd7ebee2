import ArgumentParser

/// `modelstore`: looks inside ModelStore databases and maintains them, the way `sqlite3` or
/// LevelDB's `leveldbutil` are used.
struct ModelStoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "modelstore",
        abstract: "Inspect and maintain ModelStore databases.",
        discussion: """
            Exit codes: 0 success, 1 failure, 2 usage error, 3 database, key, index or backup not found, \
            4 database in use by another process (commands that change it; the read-only ones \
            read a private copy of a database in use, and say so).
            """,
        subcommands: [
            ListCommand.self, StatsCommand.self, KeysCommand.self, CollectionsCommand.self, GetCommand.self, DumpCommand.self,
            SweepCommand.self, CompactCommand.self, RepairCommand.self, RemoveCommand.self, DeleteCommand.self,
            DeleteAllCommand.self, BackupCommand.self, RestoreCommand.self, IndexesCommand.self, QueryCommand.self,
        ])
}
