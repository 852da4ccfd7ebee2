import ArgumentParser
import Foundation
@_spi(Inspection) import ModelStore

/// `modelstore indexes NAME`: the secondary indexes a database records.
struct IndexesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "indexes",
        abstract: "List a database's secondary indexes.",
        discussion: """
            Lists every index the database records: its collection ("-" for the database's own keys), \
            name, version, state (built; building: its program's next defineIndex finishes it; \
            dropping: a drop was interrupted), ENTRIES: the entries it holds now (one per value of each \
            record, every write since its build included), KINDS: the kinds of value they hold, BUILD \
            INDEXED and BUILD SKIPPED: how many records its build read when it was defined indexed and \
            skipped (records that are not of its type; writes since are not counted there), and the \
            model type its indexer reads. `modelstore query` looks values up in a built index.
            """)

    @Argument(help: "The database's name.")
    var name: String

    @OptionGroup var root: RootOptions
    @OptionGroup var output: JSONOption

    func run() throws {
        let store = try root.inspector.unchanged(name)
        defer { try? store.close() }
        let rows = try store.indexDescriptions()
        if output.json {
            print(try JSONOutput.pretty(rows))
            return
        }
        guard !rows.isEmpty else {
            print("no indexes in \(name)")
            return
        }
        let collectionWidth = max(10, rows.map { ($0.collection ?? "-").count }.max() ?? 0)
        let nameWidth = max(5, rows.map(\.name.count).max() ?? 0)
        let kinds = rows.map { $0.valueKinds.isEmpty ? "-" : $0.valueKinds.joined(separator: ",") }
        let kindsWidth = max(5, kinds.map(\.count).max() ?? 0)
        print(
            Format.pad("COLLECTION", collectionWidth) + "  " + Format.pad("INDEX", nameWidth)
                + "  VERSION  STATE     ENTRIES  " + Format.pad("KINDS", kindsWidth)
                + "  BUILD INDEXED  BUILD SKIPPED  TYPE")
        for (row, kinds) in zip(rows, kinds) {
            print(
                Format.pad(row.collection ?? "-", collectionWidth) + "  " + Format.pad(row.name, nameWidth) + "  "
                    + Format.pad("\(row.version)", 7, right: true) + "  " + Format.pad(row.state, 8) + "  "
                    + Format.pad("\(row.entries)", 7, right: true) + "  " + Format.pad(kinds, kindsWidth) + "  "
                    + Format.pad("\(row.indexed)", 13, right: true) + "  " + Format.pad("\(row.skipped)", 13, right: true)
                    + "  " + row.modelType)
        }
    }
}
