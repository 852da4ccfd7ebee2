import ArgumentParser
import Foundation
@_spi(Inspection) import ModelStore

/// `modelstore stats NAME`: record counts, sizes and LevelDB's own statistics.
struct StatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Show a database's record counts, sizes and LevelDB statistics.",
        discussion: """
            Counts the whole database, its own keys and every collection (as `list` does), with a \
            line per key space; --collection counts one collection. Live and expired are judged \
            under --policy, else the policy recorded in the database (the one its program last \
            opened it with), else never, and the output says which.
            """)

    @Argument(help: "The database's name.")
    var name: String

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Count records as expired under this policy (default: the policy recorded in the database, else "
                + "never): \(PolicyArgument.help).",
            valueName: "policy"),
        transform: PolicyArgument.parse)
    var policy: PolicyArgument?

    @OptionGroup var collection: CollectionOption
    @OptionGroup var root: RootOptions
    @OptionGroup var output: JSONOption

    /// What `--json` prints.
    struct Report: Encodable {
        /// Sizes in bytes.
        struct Sizes: Encodable {
            /// LevelDB's estimate for the key range (compressed, excluding unflushed writes).
            let approximate: UInt64
            let onDisk: UInt64
            let files: Int
        }

        /// One key space counted: the database's own keys (`collection` null) or a collection.
        struct KeySpace: Encodable {
            let collection: String?
            /// The collection's own recorded policy (stamped on the records it writes), or null.
            let policy: String?
            let total: Int
            let live: Int
            let expired: Int

            /// Written by hand so `collection` and `policy` print as null rather than vanish.
            private enum CodingKeys: String, CodingKey { case collection, policy, total, live, expired }

            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(collection, forKey: .collection)
                try container.encode(policy, forKey: .policy)
                try container.encode(total, forKey: .total)
                try container.encode(live, forKey: .live)
                try container.encode(expired, forKey: .expired)
            }
        }

        let name: String
        /// The collection counted (--collection), or nil for the whole database.
        let collection: String?
        /// What `records` counts: `database` (its own keys and every collection) or `collection`.
        let counted: String
        let path: String
        /// The policy `records.expired` was counted under.
        let policy: String
        /// Whether no `--policy` was given (the policy is then the recorded one, or assumed).
        let policyIsDefault: Bool
        /// Where the policy came from: `option`, `recorded` or `assumed`.
        let policySource: InspectionPolicy.Source
        let records: RecordCounts
        /// `records`, key space by key space: they add up to it.
        let keySpaces: [KeySpace]
        let sizes: Sizes
        /// The database's encryption (algorithm and key identifier, never the key), or null.
        let encryption: String?
        /// The limits recorded by the last program that opened the database with one, and how
        /// close the database is to them.
        let limits: Limits

        /// `limits` in `--json`: nulls for limits not set (or none recorded).
        struct Limits: Encodable {
            let maximumTotalBytes: Int?
            let maximumRecordCount: Int?
            /// `leastRecentlyUsed` or `oldestWritten`, or null when no limits are recorded.
            let eviction: String?
            /// Record bytes (keys plus stored values), as the limits count them.
            let recordBytes: Int
            let recordCount: Int

            private enum CodingKeys: String, CodingKey {
                case maximumTotalBytes, maximumRecordCount, eviction, recordBytes, recordCount
            }

            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(maximumTotalBytes, forKey: .maximumTotalBytes)
                try container.encode(maximumRecordCount, forKey: .maximumRecordCount)
                try container.encode(eviction, forKey: .eviction)
                try container.encode(recordBytes, forKey: .recordBytes)
                try container.encode(recordCount, forKey: .recordCount)
            }
        }
        let leveldbStats: String
    }

    func run() throws {
        let counter = try RecordCounter(name, inspector: root.inspector, policy: policy)
        let everything = counter.store
        let spaces = try collection.collection.map { [($0, try counter.counts(in: $0))] } ?? counter.everyKeySpace()
        let usage = root.storeRoot.diskUsage(of: name)
        let recorded = try everything.recordedLimits()
        let status = try everything.limitStatus()
        let report = Report(
            name: name,
            collection: collection.collection,
            counted: collection.collection == nil ? "database" : "collection",
            path: root.storeRoot.directory(of: name).path,
            policy: counter.policy.policy.description,
            policyIsDefault: policy == nil,
            policySource: counter.policy.source,
            records: spaces.reduce(RecordCounts()) { $0 + $1.counts },
            keySpaces: spaces.map { space in
                Report.KeySpace(
                    collection: space.collection,
                    policy: space.collection.flatMap { InspectionPolicy.collectionPolicy($0, in: everything) },
                    total: space.counts.total, live: space.counts.live, expired: space.counts.expired)
            },
            sizes: .init(approximate: try everything.approximateSize(), onDisk: usage.bytes, files: usage.files),
            encryption: try everything.encryptionDescription(),
            limits: .init(
                maximumTotalBytes: recorded?.maximumTotalBytes, maximumRecordCount: recorded?.maximumRecordCount,
                eviction: recorded.map { $0.eviction.description }, recordBytes: status.recordBytes,
                recordCount: status.recordCount),
            leveldbStats: try everything.statistics())
        if output.json {
            print(try JSONOutput.pretty(report))
        } else {
            printText(report, policy: counter.policy)
        }
    }

    private func printLimits(_ limits: Report.Limits) {
        func percent(_ value: Int, of limit: Int) -> String {
            limit > 0 ? String(format: "%.0f %%", Double(value) * 100 / Double(limit)) : "-"
        }
        guard let eviction = limits.eviction else {
            print("limits       none recorded  (\(Format.bytes(UInt64(limits.recordBytes))) in "
                + "\(Format.count(limits.recordCount, "record")), as limits count them)")
            return
        }
        print("limits       eviction \(eviction)  (recorded by the last program that opened it with a limit)")
        let bytes = Format.bytes(UInt64(limits.recordBytes))
        if let maximum = limits.maximumTotalBytes {
            print("  bytes      \(bytes) of \(Format.bytes(UInt64(maximum)))  (\(percent(limits.recordBytes, of: maximum)))")
        } else {
            print("  bytes      \(bytes)  (no limit)")
        }
        if let maximum = limits.maximumRecordCount {
            print("  records    \(limits.recordCount) of \(maximum)  (\(percent(limits.recordCount, of: maximum)))")
        } else {
            print("  records    \(limits.recordCount)  (no limit)")
        }
    }

    private func printText(_ report: Report, policy: InspectionPolicy) {
        print("database     \(report.name)")
        print("path         \(report.path)")
        let collections = report.keySpaces.count - 1
        if let name = report.collection {
            print("collection   \(name)  (records counted in it; sizes and statistics are the database's)")
            print("records      \(report.records.total)  (collection \(name) only)")
        } else {
            let what = collections == 0 ? "no collections" : "\(Format.count(collections, "collection"))"
            print("records      \(report.records.total)  (the whole database: its own keys and \(what))")
        }
        print("  live       \(report.records.live)")
        print("  expired    \(report.records.expired)  (under policy \(policy.explanation))")
        if report.collection == nil, collections > 0 {
            for space in report.keySpaces {
                let expired = space.expired > 0 ? "  (\(space.expired) expired)" : ""
                print("  " + Format.pad(space.collection ?? "own keys", 10) + " \(space.total)\(expired)")
            }
        }
        print(
            "size         \(Format.bytes(report.sizes.onDisk)) on disk in \(Format.count(report.sizes.files, "file"))")
        print("  estimate   \(Format.bytes(report.sizes.approximate))  (LevelDB's estimate; excludes unflushed writes)")
        print("encryption   \(report.encryption ?? "none")")
        printLimits(report.limits)
        print("")
        print("LevelDB statistics:")
        print(report.leveldbStats.trimmingCharacters(in: .newlines))
    }
}
