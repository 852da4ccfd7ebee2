import ArgumentParser
import Foundation
import ModelStore

/// `modelstore dump NAME`: every record as newline-delimited JSON.
struct DumpCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dump",
        abstract: "Print every record as newline-delimited JSON (key, metadata, value).",
        discussion: """
            Records stream through a cursor one at a time, so a dump of any size runs in constant \
            memory. Expiry (`expired`) is judged under --policy, else the policy recorded in the database, \
            else never (said on standard error). Each line has the form of `get --json`: property lists converted to JSON, records \
            of the binary codec and custom codecs as base64 of their encoded bytes, and `shownAs` \
            saying which, then the record's format version, checksum verdict and metadata. A record that \
            cannot be read at all (a damaged header, or bytes that fail the checksum) is printed as \
            {"key": ..., "error": ...}, the error of a record that fails its checksum giving the \
            `modelstore remove` command that removes it; the dump goes on and exits with 1 at the end. \
            With standard output redirected and standard error on a terminal, a progress bar is drawn. \
            The records of an encrypted database need --key-file; without it each is printed as \
            {"key": ..., "encrypted": true, "sealedBy": ...} (never its ciphertext) and the dump exits with 1.
            """)

    @Argument(help: "The database's name.")
    var name: String

    @Option(help: "Only records whose keys start with this prefix.")
    var prefix: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Judge expiry under this policy (default: the policy recorded in the database, else never): "
                + "\(PolicyArgument.help).", valueName: "policy"),
        transform: PolicyArgument.parse)
    var policy: PolicyArgument?

    @OptionGroup var collection: CollectionOption
    @OptionGroup var root: RootOptions

    func run() throws {
        let (store, judgedBy) = try root.inspector.unchanged(name, policyOption: policy)
        defer { try? store.close() }
        if let note = judgedBy.note(for: name) { Terminal.printError(note) }
        let range = prefix.map(KeyRange.prefix) ?? .all
        let scope = collection.scope(in: store)
        // The records go to standard output, so progress is only drawn when they are going
        // somewhere else (a file, a pipe) and a person is watching standard error.
        let showsProgress = !Terminal.stdoutIsTerminal && Terminal.stderrIsTerminal
        let total = showsProgress ? try scope.count(in: range) : nil  // a header-only pass, for the bar
        let progress = Progress("Dumping \(name)", total: total, unit: "records", enabled: showsProgress)
        defer { progress.finish() }

        // Keys first, then each record: a record that fails its checksum is reported by its
        // key on a line of its own, and the dump goes on.
        let cursor = try scope.keys(in: range, reverse: false, limit: nil)
        let encoder = JSONOutput.compactEncoder()
        let out = StandardOutput()
        let now = Date()
        var written = 0
        var undecodable = 0
        var encrypted = 0
        let raw = RawRecordReader(
            inspector: root.inspector, name: name, policy: judgedBy.policy, collection: collection.collection)
        while let key = try cursor.next() {
            do {
                try scope.requireIntactRecord(forKey: key, in: store, collection: collection.collection)
                if let sealed = scope.sealedRecordReport(forKey: key) {
                    encrypted += 1
                    out.line(bytes: try encoder.encode(sealed))
                } else if var report = try scope.entry(InspectedValue.self, forKey: key).map({ RecordReport($0, now: now) }) {
                    report.addEnvelope(forKey: key, in: scope, raw: raw)
                    out.line(bytes: try encoder.encode(report))
                }
            } catch ModelStoreError.decodingFailed(let key, _, let message) {
                if let (entry, codec) = try raw.entry(forKey: key),
                    var report = RecordReport(entry, codec: codec, now: now)
                {
                    report.addEnvelope(forKey: key, in: scope, raw: raw)
                    out.line(bytes: try encoder.encode(report))
                } else {
                    undecodable += 1
                    out.line(bytes: try encoder.encode(UndecodableRecordReport(key: key, error: message)))
                }
            } catch let failure as CommandFailure {
                undecodable += 1
                out.line(bytes: try encoder.encode(UndecodableRecordReport(key: key, error: failure.message)))
            } catch let error as ModelStoreError {
                // One damaged record (`corrupted` naming it, with the command that removes it).
                guard case .corrupted = error else { throw error }
                undecodable += 1
                // In the tool's words, naming the database's path, not the copy's.
                let message = PrivateCopies.unmask(CommandFailure.message(for: error))
                out.line(bytes: try encoder.encode(UndecodableRecordReport(key: key, error: message)))
            }
            written += 1
            progress.update(completed: written)
        }
        out.flush()
        progress.finish()
        if encrypted > 0, undecodable == 0 { throw CommandFailure.encrypted(encrypted) }
        if undecodable > 0 {
            throw CommandFailure(
                status: .failure,
                message: "\(Format.count(undecodable, "record")) of \(written) could not be read; "
                    + "see the lines with an \"error\" member.")
        }
    }
}
