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
            swept. RECORDS counts its records still fresh under --policy, else the policy recorded in \
            the database (the one its program last opened it with), else never; EXPIRED the others \
            (records with a lifetime of their own expire by it whatever the policy). `stats NAME \
            --collection C` counts the same way. OWN POLICY is the policy the program last gave the \
            collection (`collection(_:policy:)`), which each record it writes carries. The database's \
            own keys (outside any collection) are not a collection: `modelstore keys NAME` lists them. \
            Use --collection with keys, get, dump and stats to look inside one.
            """)

    @Argument(help: "The database's name.")
    var name: String

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Count only records fresh under this policy (default: the policy recorded in the database, else "
                + "never): \(PolicyArgument.help).",
            valueName: "policy"),
        transform: PolicyArgument.parse)
    var policy: PolicyArgument?

    @OptionGroup var root: RootOptions
    @OptionGroup var output: JSONOption

    /// One element of `--json`.
    struct Row: Encodable {
        let name: String
        /// The live records (as `stats --collection`'s `records.live`).
        let records: Int
        let expired: Int
        let total: Int
        /// The collection's own recorded policy, or null.
        let policy: String?

        /// Written by hand so `policy` prints as null rather than vanish.
        private enum CodingKeys: String, CodingKey { case name, records, expired, total, policy }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(name, forKey: .name)
            try container.encode(records, forKey: .records)
            try container.encode(expired, forKey: .expired)
            try container.encode(total, forKey: .total)
            try container.encode(policy, forKey: .policy)
        }
    }

    func run() throws {
        let counter = try RecordCounter(name, inspector: root.inspector, policy: policy)
        let rows = try counter.store.collectionNames().map { name in
            let counts = try counter.counts(in: name)
            return Row(
                name: name, records: counts.live, expired: counts.expired, total: counts.total,
                policy: InspectionPolicy.collectionPolicy(name, in: counter.store))
        }
        if output.json {
            print(try JSONOutput.pretty(rows))
            return
        }
        guard !rows.isEmpty else {
            print("no collections in \(name)")
            return
        }
        let width = max(10, rows.map(\.name.count).max() ?? 0)
        print(Format.pad("COLLECTION", width) + "  RECORDS  EXPIRED  OWN POLICY")
        for row in rows {
            print(
                Format.pad(row.name, width) + "  " + Format.pad("\(row.records)", 7, right: true) + "  "
                    + Format.pad("\(row.expired)", 7, right: true) + "  " + (row.policy ?? "-"))
        }
        print("RECORDS are live under policy \(counter.policy.explanation).")
    }
}
