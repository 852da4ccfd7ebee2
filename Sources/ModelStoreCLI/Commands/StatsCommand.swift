import ArgumentParser
import Foundation
import ModelStore

/// `modelstore stats NAME`: record counts, sizes and LevelDB's own statistics.
struct StatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Show a database's record counts, sizes and LevelDB statistics.")

    @Argument(help: "The database's name.")
    var name: String

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Count records as expired under this policy (default: never, under which only records stored "
                + "with a lifetime of their own expire): \(PolicyArgument.help).",
            valueName: "policy"),
        transform: PolicyArgument.parse)
    var policy: PolicyArgument?

    /// The policy expiry is judged by: `--policy`, or `never` when none is given (a database
    /// does not record the policy its program opens it with, so the tool cannot know it).
    private var assumedPolicy: UpdatePolicy { policy?.policy ?? .never }

    @OptionGroup var collection: CollectionOption
    @OptionGroup var root: RootOptions
    @OptionGroup var output: JSONOption

    /// What `--json` prints.
    struct Report: Encodable {
        /// Records on disk, and how many of them are fresh or expired under `--policy`.
        struct Records: Encodable {
            let total: Int
            let live: Int
            let expired: Int
        }

        /// Sizes in bytes.
        struct Sizes: Encodable {
            /// LevelDB's estimate for the key range (compressed, excluding unflushed writes).
            let approximate: UInt64
            let onDisk: UInt64
            let files: Int
        }

        let name: String
        /// The collection counted (--collection), or nil for the database's own keys.
        let collection: String?
        let path: String
        /// The policy `records.expired` was counted under.
        let policy: String
        /// Whether that policy is the default (`never`, no `--policy` given) rather than chosen.
        let policyIsDefault: Bool
        let records: Records
        let sizes: Sizes
        let leveldbStats: String
    }

    func run() throws {
        let inspector = root.inspector
        let everything = try inspector.unchanged(name)
        defer { try? everything.close() }
        let current = try inspector.current(name, policy: assumedPolicy)
        defer { try? current.close() }

        let total = try collection.scope(in: everything).count(in: .all)
        let live = try collection.scope(in: current).count(in: .all)
        let usage = root.storeRoot.diskUsage(of: name)
        let report = Report(
            name: name,
            collection: collection.collection,
            path: everything.url.path,
            policy: assumedPolicy.description,
            policyIsDefault: policy == nil,
            records: .init(total: total, live: live, expired: max(0, total - live)),
            sizes: .init(approximate: try everything.approximateSize(), onDisk: usage.bytes, files: usage.files),
            leveldbStats: try everything.statistics())
        if output.json {
            print(try JSONOutput.pretty(report))
        } else {
            printText(report)
        }
    }

    private func printText(_ report: Report) {
        print("database     \(report.name)")
        print("path         \(report.path)")
        if let name = report.collection {
            print("collection   \(name)  (records counted in it; sizes and statistics are the database's)")
        }
        print("records      \(report.records.total)")
        print("  live       \(report.records.live)")
        let assumption = report.policyIsDefault ? ", assumed: no --policy given" : ""
        print("  expired    \(report.records.expired)  (under policy \(report.policy)\(assumption))")
        print(
            "size         \(Format.bytes(report.sizes.onDisk)) on disk in \(Format.count(report.sizes.files, "file"))")
        print("  estimate   \(Format.bytes(report.sizes.approximate))  (LevelDB's estimate; excludes unflushed writes)")
        print("")
        print("LevelDB statistics:")
        print(report.leveldbStats.trimmingCharacters(in: .newlines))
    }
}
