import ArgumentParser
import ModelStore

/// `modelstore list`: the databases under the root, with record counts and sizes on disk.
struct ListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the databases under the root, with record counts and size on disk.",
        discussion: """
            Folders without ModelStore's .modelstore marker are not databases and are skipped. \
            A deletion a crash interrupted (a .modelstore-trash-* folder) is listed with status \
            "deleting", and a database being created, or whose creation a crash interrupted (a \
            .modelstore-new-* folder), with status "creating"; the next delete, delete-all or open \
            in the root finishes the deletion and removes the interrupted creation.
            """)

    @OptionGroup var root: RootOptions
    @OptionGroup var output: JSONOption

    /// One line of the listing. `records` is nil when the database could not be opened
    /// (`status` says why: `error`, or `locked` if even its private copy could not be opened for
    /// that reason). A database another process holds is counted from a private copy.
    struct Row: Encodable {
        let name: String
        /// Every stored record: `list` applies no update policy, so expired records are counted
        /// (`includesExpired` says so in the JSON; `stats --policy` tells live from expired).
        let records: Int?
        /// The records fresh under `policy` (nil when the database could not be opened).
        var live: Int? = nil
        /// The policy `live` was counted under, and where it came from (`recorded`, or `assumed`
        /// for a database that records none).
        var policy: InspectionPolicy? = nil
        let bytesOnDisk: UInt64
        let status: String
        let error: String?

        /// Written by hand so `records` prints as null for a database that could not be opened.
        private enum CodingKeys: String, CodingKey {
            case name, records, includesExpired, live, policy, policySource, bytesOnDisk, status, error
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(name, forKey: .name)
            try container.encode(records, forKey: .records)
            try container.encode(true, forKey: .includesExpired)
            try container.encode(live, forKey: .live)
            try container.encode(policy?.policy.description, forKey: .policy)
            try container.encode(policy?.source, forKey: .policySource)
            try container.encode(bytesOnDisk, forKey: .bytesOnDisk)
            try container.encode(status, forKey: .status)
            try container.encodeIfPresent(error, forKey: .error)
        }
    }

    func run() throws {
        let storeRoot = root.storeRoot
        // Listed before any database is opened (the tool's inspections change nothing, but a
        // program's open may finish them meanwhile).
        let deleting = storeRoot.pendingDeletions().map { name in
            Row(name: name, records: nil, bytesOnDisk: storeRoot.diskUsage(of: name).bytes,
                status: StoreRoot.pendingDeletionStatus, error: nil)
        }
        let creating = storeRoot.unfinishedCreations().map { name in
            Row(name: name, records: nil, bytesOnDisk: storeRoot.diskUsage(of: name).bytes,
                status: StoreRoot.unfinishedCreationStatus, error: nil)
        }
        let rows = try storeRoot.databaseNames().map { row(for: $0, in: storeRoot) } + deleting + creating
        if output.json {
            print(try JSONOutput.pretty(rows))
            return
        }
        guard !rows.isEmpty else {
            print("No databases under \(storeRoot.path).")
            return
        }
        let nameWidth = max(4, rows.map(\.name.count).max() ?? 0)
        print(
            Format.pad("NAME", nameWidth) + "  " + Format.pad("RECORDS", 10, right: true) + "  "
                + Format.pad("LIVE", 10, right: true) + "  " + Format.pad("ON DISK", 10, right: true) + "  POLICY")
        for row in rows {
            let records = row.records.map(String.init) ?? row.status
            let policy = row.policy?.column
            print(
                Format.pad(row.name, nameWidth) + "  " + Format.pad(records, 10, right: true) + "  "
                    + Format.pad(row.live.map(String.init) ?? "-", 10, right: true) + "  "
                    + Format.pad(Format.bytes(row.bytesOnDisk), 10, right: true) + "  " + (policy ?? "-"))
        }
        print("RECORDS counts every stored record, expired ones included (no policy applied); "
            + "LIVE those fresh under POLICY, the policy the database records (the one its program last opened "
            + "it with). `modelstore stats NAME` counts them by collection.")
    }

    /// Counts every stored record (expired ones too: the listing shows what is on disk), and the
    /// live ones under the recorded policy, as `stats` does.
    private func row(for name: String, in storeRoot: StoreRoot) -> Row {
        let bytes = storeRoot.diskUsage(of: name).bytes
        do {
            let counter = try RecordCounter(name, inspector: Inspector(root: storeRoot), policy: nil)
            let counts = try counter.database()
            return Row(
                name: name, records: counts.total, live: counts.live, policy: counter.policy, bytesOnDisk: bytes,
                status: "ok", error: nil)
        } catch let error as ModelStoreError {
            // The tool's words, naming the database rather than the private copy read.
            let message = PrivateCopies.unmask(CommandFailure.message(for: error))
            if case .locked = error {
                return Row(name: name, records: nil, bytesOnDisk: bytes, status: "locked", error: message)
            }
            return Row(name: name, records: nil, bytesOnDisk: bytes, status: "error", error: message)
        } catch {
            return Row(name: name, records: nil, bytesOnDisk: bytes, status: "error", error: "\(error)")
        }
    }
}
