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
            under --policy, else the policy recorded in the database, else never, in key order. Without \
            --type, VALUE is looked up as each kind of value the index holds that it reads as (a number \
            as an int, a double or a date, true or false as a bool, any text as a string); --type reads \
            it as one kind: a string, an int, a double, a date (ISO 8601, or seconds since 1970) or a \
            bool. Give "" as COLLECTION for the database's own keys. Nothing is written.
            """)

    enum Kind: String, ExpressibleByArgument, CaseIterable {
        case bool, int, double, date, string
    }

    @Argument(help: "The database's name.")
    var name: String

    @Argument(help: "The collection the index is defined on (\"\" for the database's own keys).")
    var collection: String

    @Argument(help: "The index's name.")
    var index: String

    @Argument(help: "The value to look up.")
    var value: String

    @Option(
        help: ArgumentHelp(
            "How VALUE is read: \(Kind.allCases.map(\.rawValue).joined(separator: ", ")) (default: as each kind "
                + "of value the index holds that VALUE reads as)."))
    var type: Kind?

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
        if let type, indexValue(as: type) == nil {
            throw ValidationError("VALUE \(value.debugDescription) is not a valid \(type.rawValue).")
        }
    }

    /// VALUE as an ``IndexValue`` of `kind`; nil when it does not read as one.
    func indexValue(as kind: Kind) -> IndexValue? {
        switch kind {
        case .string: return .string(value)
        case .int: return Int64(value).map { .int($0) }
        case .double: return Double(value).map { .double($0) }
        case .bool: return Bool(value).map { .bool($0) }
        case .date:
            if let seconds = Double(value) { return .date(Date(timeIntervalSince1970: seconds)) }
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            if let date = formatter.date(from: value) { return .date(date) }
            formatter.formatOptions = [.withInternetDateTime]
            return formatter.date(from: value).map { .date($0) }
        }
    }

    func run() throws {
        let (store, judgedBy) = try root.inspector.current(name, policyOption: policy)
        if let note = judgedBy.note(for: name) { Terminal.printError(note) }
        defer { try? store.close() }
        let description = try store.indexDescriptions().first {
            $0.name == index && ($0.collection ?? "") == collection && $0.state != "dropping"
        }
        guard let description else { throw unknownIndex() }
        let held = description.valueKinds.compactMap(Kind.init(rawValue:))
        // Without --type, every kind the index holds that VALUE reads as (a string when it holds
        // none yet): "12.5" finds a double index's 12.5, as the program that wrote it meant.
        let kinds = type.map { [$0] } ?? (held.isEmpty ? [.string] : held)
        var keys: [String] = []
        for kind in kinds {
            guard let value = indexValue(as: kind) else { continue }
            do {
                let cursor =
                    collection.isEmpty
                    ? try store.inspectKeys(where: index, equals: value, reverse: reverse, limit: limit)
                    : try store.collection(collection).inspectKeys(
                        where: index, equals: value, reverse: reverse, limit: limit)
                keys += try cursor.collect()
            } catch ModelStoreError.indexNotDefined {
                throw unknownIndex()
            } catch ModelStoreError.indexNotBuilt {
                throw CommandFailure(
                    status: .failure,
                    message: "the index \(index.debugDescription) of \(place) is not built yet: the program that "
                        + "defines it finishes its build the next time it defines it. `\(indexesCommand)` shows its "
                        + "state.")
            }
        }
        if kinds.count > 1 { keys = merged(keys) }
        if keys.isEmpty, description.entries > 0, let note = kindNote(queried: kinds, held: held) {
            Terminal.printError(note)
        }
        if output.json {
            print(try JSONOutput.pretty(keys))
        } else {
            let out = StandardOutput()
            for key in keys { out.line(key) }
            out.flush()
        }
    }

    /// Keys found under several kinds, in key order (by UTF-8 bytes, as LevelDB orders them),
    /// each once (by its bytes too: two spellings of "é" are two keys), then cut to --limit.
    private func merged(_ keys: [String]) -> [String] {
        var seen = Set<[UInt8]>()
        let unique = keys.filter { seen.insert(Array($0.utf8)).inserted }
        var sorted = unique.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        if reverse { sorted.reverse() }
        return limit.map { Array(sorted.prefix($0)) } ?? sorted
    }

    /// Why a query of a non-empty index found nothing, when the kinds looked up are not the
    /// kinds it holds; nil when they are (the value is simply not there).
    private func kindNote(queried: [Kind], held: [Kind]) -> String? {
        let looked = queried.filter { indexValue(as: $0) != nil }
        guard !held.isEmpty, Set(looked).isDisjoint(with: held) else { return nil }
        let kinds = held.map(\.rawValue).joined(separator: ", ")
        let readable = held.filter { indexValue(as: $0) != nil }
        if let first = readable.first {
            return "note: the index \(index.debugDescription) holds \(kinds) values, none of the kind VALUE was looked "
                + "up as; look it up as \(first.rawValue) with `--type \(first.rawValue)`."
        }
        return "note: the index \(index.debugDescription) holds \(kinds) values, and \(value.debugDescription) reads "
            + "as none of them."
    }

    /// The collection as messages name it.
    private var place: String {
        collection.isEmpty ? "the database's own keys" : "the collection \(collection.debugDescription)"
    }

    /// `modelstore indexes NAME --root ROOT`.
    private var indexesCommand: ToolCommand {
        ToolCommand("indexes", [name], options: [.init("root", root.storeRoot.path)])
    }

    private func unknownIndex() -> CommandFailure {
        CommandFailure(
            status: .notFound,
            message: "no index \(index.debugDescription) on \(place) of \(name.debugDescription). Run "
                + "`\(indexesCommand)` to see the database's indexes.")
    }
}
