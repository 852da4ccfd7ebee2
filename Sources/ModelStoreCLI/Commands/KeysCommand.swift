import ArgumentParser
import Foundation
import ModelStore

/// `modelstore keys NAME`: the keys in a database, in LevelDB's (byte-wise) order.
struct KeysCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys",
        abstract: "List a database's keys in order.",
        discussion: """
            Lists the keys whose records are still fresh under --policy, else the policy recorded in the \
            database (the one its program last opened it with), else never (said on standard error). \
            --include-expired lists every stored key, expired or not. Nothing is removed either way.
            """)

    @Argument(help: "The database's name.")
    var name: String

    @Option(help: "Only keys that start with this prefix.")
    var prefix: String?

    @Flag(help: "List from the last key to the first.")
    var reverse = false

    // `.unconditional` so `--limit -5` reaches validate() instead of being read as an option.
    @Option(parsing: .unconditional, help: "List at most this many keys (0 or more).")
    var limit: Int?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Only keys still fresh under this policy (default: the policy recorded in the database, else never): "
                + "\(PolicyArgument.help).", valueName: "policy"),
        transform: PolicyArgument.parse)
    var policy: PolicyArgument?

    @Flag(help: "List every stored key, expired or not (no policy applied).")
    var includeExpired = false

    @OptionGroup var collection: CollectionOption
    @OptionGroup var root: RootOptions
    @OptionGroup var output: JSONOption

    func validate() throws {
        if let limit, limit < 0 { throw ValidationError("--limit must be 0 or more; got \(limit).") }
        if includeExpired, policy != nil {
            throw ValidationError("--include-expired applies no policy; leave out --policy, or --include-expired.")
        }
    }

    func run() throws {
        let inspector = root.inspector
        let store: ModelStore
        if includeExpired {
            store = try inspector.unchanged(name)
        } else {
            let judgedBy: InspectionPolicy
            (store, judgedBy) = try inspector.current(name, policyOption: policy)
            if let note = judgedBy.note(for: name) { Terminal.printError(note) }
        }
        defer { try? store.close() }
        let range = prefix.map(KeyRange.prefix) ?? .all
        let cursor = try collection.scope(in: store).keys(in: range, reverse: reverse, limit: limit)
        let out = StandardOutput()
        if output.json {
            try writeJSONArray(cursor, to: out)
        } else {
            while let key = try cursor.next() {
                out.line(key)
            }
        }
        out.flush()
    }

    /// Writes the keys as a JSON array one element at a time, so a database of millions of
    /// keys is listed in constant memory too.
    private func writeJSONArray(_ cursor: Cursor<String>, to out: StandardOutput) throws {
        let encoder = JSONOutput.compactEncoder()
        guard var pending = try cursor.next() else {
            out.line("[]")
            return
        }
        out.line("[")
        while let key = try cursor.next() {
            out.line("  " + String(decoding: try encoder.encode(pending), as: UTF8.self) + ",")
            pending = key
        }
        out.line("  " + String(decoding: try encoder.encode(pending), as: UTF8.self))
        out.line("]")
    }
}
