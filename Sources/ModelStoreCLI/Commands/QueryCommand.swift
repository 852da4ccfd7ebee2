import ArgumentParser
import Foundation
@_spi(Inspection) import ModelStore

/// `modelstore query NAME COLLECTION INDEX VALUE`: the keys of the records a built index holds
/// a value for, in key order.
struct QueryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "query",
        abstract: "List the keys of the records whose index holds a value.",
        discussion: """
            Reads the index's entries as the program that defined it last wrote them: the index must be \
            built (`modelstore indexes NAME` shows its state). Lists the keys of records still fresh \
            under --policy, else the policy recorded in the database, else never, in key order. VALUE \
            is read as --type: a string (the default), an int, a double, a date (ISO 8601, or seconds \
            since 1970) or a bool. Give "" as COLLECTION for the database's own keys. Nothing is written.
            """)

    enum Kind: String, ExpressibleByArgument, CaseIterable {
        case string, int, double, date, bool
    }

    @Argument(help: "The database's name.")
    var name: String

    @Argument(help: "The collection the index is defined on (\"\" for the database's own keys).")
    var collection: String

    @Argument(help: "The index's name.")
    var index: String

    @Argument(help: "The value to look up.")
    var value: String

    @Option(help: "How VALUE is read: \(Kind.allCases.map(\.rawValue).joined(separator: ", ")).")
    var type: Kind = .string

    @Flag(help: "List from the last key to the first.")
    var reverse = false

    @Option(parsing: .unconditional, help: "List at most this many keys (0 or more).")
    var limit: Int?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Only records still fresh under this policy (default: the policy recorded in the database, else "
                + "never): \(PolicyArgument.help).", valueName: "policy"),
        transform: PolicyArgument.parse)
    var policy: PolicyArgument?

    @OptionGroup var root: RootOptions
    @OptionGroup var output: JSONOption

    func validate() throws {
        if let limit, limit < 0 { throw ValidationError("--limit must be 0 or more; got \(limit).") }
        _ = try indexValue()
    }

    /// VALUE as an ``IndexValue`` of --type.
    func indexValue() throws -> IndexValue {
        func invalid() -> ValidationError {
            ValidationError("VALUE \(value.debugDescription) is not a valid \(type.rawValue).")
        }
        switch type {
        case .string: return .string(value)
        case .int:
            guard let int = Int64(value) else { throw invalid() }
            return .int(int)
        case .double:
            guard let double = Double(value) else { throw invalid() }
            return .double(double)
        case .bool:
            guard let bool = Bool(value) else { throw invalid() }
            return .bool(bool)
        case .date:
            if let seconds = Double(value) { return .date(Date(timeIntervalSince1970: seconds)) }
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            if let date = formatter.date(from: value) { return .date(date) }
            formatter.formatOptions = [.withInternetDateTime]
            guard let date = formatter.date(from: value) else { throw invalid() }
            return .date(date)
        }
    }

    func run() throws {
        let (store, judgedBy) = try root.inspector.current(name, policyOption: policy)
        if let note = judgedBy.note(for: name) { Terminal.printError(note) }
        defer { try? store.close() }
        let value = try indexValue()
        let cursor =
            collection.isEmpty
            ? try store.inspectKeys(where: index, equals: value, reverse: reverse, limit: limit)
            : try store.collection(collection).inspectKeys(where: index, equals: value, reverse: reverse, limit: limit)
        let keys = try cursor.collect()
        if output.json {
            print(try JSONOutput.pretty(keys))
        } else {
            let out = StandardOutput()
            for key in keys { out.line(key) }
            out.flush()
        }
    }
}

/// `modelstore indexes NAME`: the secondary indexes a database records.
struct IndexesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "indexes",
        abstract: "List a database's secondary indexes.",
        discussion: """
            Lists every index the database records: its collection ("-" for the database's own keys), \
            name, version, state (built; building: its program's next defineIndex finishes it; \
            dropping: a drop was interrupted), the model type its indexer reads, and how many records \
            its build indexed and skipped (records that are not of that type). `modelstore query` \
            looks values up in a built index.
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
        print(
            Format.pad("COLLECTION", collectionWidth) + "  " + Format.pad("INDEX", nameWidth)
                + "  VERSION  STATE     INDEXED  SKIPPED  TYPE")
        for row in rows {
            print(
                Format.pad(row.collection ?? "-", collectionWidth) + "  " + Format.pad(row.name, nameWidth) + "  "
                    + Format.pad("\(row.version)", 7, right: true) + "  " + Format.pad(row.state, 8) + "  "
                    + Format.pad("\(row.indexed)", 7, right: true) + "  " + Format.pad("\(row.skipped)", 7, right: true)
                    + "  " + row.modelType)
        }
    }
}
