import ArgumentParser
import Foundation
import ModelStore

/// `modelstore collections NAME`: the named collections in a database, with record counts.
struct CollectionsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "collections",
        abstract: "List a database's collections with their record counts.",
        discussion: """
            A collection is listed while it holds at least one record, live or expired but not yet \
            swept; its count is of the records still fresh under --policy (default: never, under \
            which only records stored with a lifetime of their own expire). The database's own keys \
            (outside any collection) are not a collection: `modelstore keys NAME` lists them. Use \
            --collection with keys, get, dump and stats to look inside one.
            """)

    @Argument(help: "The database's name.")
    var name: String

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Count only records fresh under this policy: \(PolicyArgument.help).", valueName: "policy"),
        transform: PolicyArgument.parse)
    var policy = PolicyArgument(.never)

    @OptionGroup var root: RootOptions
    @OptionGroup var output: JSONOption

    struct Row: Encodable {
        let name: String
        let records: Int
    }

    func run() throws {
        let store = try root.inspector.unchanged(name, policy: policy.policy)
        defer { try? store.close() }
        let rows = try store.collectionNames().map { Row(name: $0, records: try store.collection($0).count(in: .all)) }
        if output.json {
            print(try JSONOutput.pretty(rows))
            return
        }
        guard !rows.isEmpty else {
            print("no collections in \(name)")
            return
        }
        let width = rows.map(\.name.count).max() ?? 0
        for row in rows {
            print(row.name.padding(toLength: max(width, 4), withPad: " ", startingAt: 0) + "  \(row.records)")
        }
    }
}
