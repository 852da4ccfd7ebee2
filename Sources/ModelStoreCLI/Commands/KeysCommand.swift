import ArgumentParser
import Foundation
import ModelStore

/// `modelstore keys NAME`: the keys in a database, in LevelDB's (byte-wise) order.
struct KeysCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys",
        abstract: "List a database's keys in order.",
        discussion: """
            Without --policy every stored key is listed, expired or not. With --policy only keys \
            whose records are still fresh under that policy are listed. Nothing is removed either way.
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
        help: ArgumentHelp("Only keys still fresh under this policy: \(PolicyArgument.help).", valueName: "policy"),
        transform: PolicyArgument.parse)
    var policy: PolicyArgument?

    @OptionGroup var collection: CollectionOption
    @OptionGroup var root: RootOptions
    @OptionGroup var output: JSONOption

    func validate() throws {
        if let limit, limit < 0 { throw ValidationError("--limit must be 0 or more; got \(limit).") }
    }

    func run() throws {
        let inspector = root.inspector
        let store = try policy.map { try inspector.current(name, policy: $0.policy) } ?? inspector.unchanged(name)
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
