import ArgumentParser
import Foundation
@_spi(Inspection) import ModelStore

/// `modelstore get NAME KEY`: one stored model as JSON, with its metadata.
struct GetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "get",
        abstract: "Print the model stored under a key, with its metadata.",
        discussion: """
            The model is decoded without knowing its Swift type. Records written by the JSON codec \
            are shown as they were stored; property-list records are converted to JSON; records of \
            the binary codec and of custom codecs are shown as base64 of their encoded bytes, since \
            they cannot be decoded without the model type. The "shown as" line (`shownAs` in --json: \
            json, jsonConvertedFromPropertyList or base64) says which. Expired records are shown too, \
            marked as expired under --policy (default: the policy recorded in the database, else never; \
            the "policy" line says which), and are not removed. The record's format version, \
            checksum verdict and metadata (JSON where its codec allows, else base64) follow; a record \
            that fails its checksum is not shown and the command exits with 1, naming the \
            `modelstore remove` command that removes that record. A model stored compressed is shown \
            decompressed, and its size line gives both sizes (`compressed` and \
            `uncompressedModelByteCount` in --json). A record of an encrypted database is shown only \
            with --key-file; without it, the tool says the record is encrypted and by which key \
            (`"encrypted": true` in --json), shows its envelope and tags, never its ciphertext, and \
            exits with 1.
            """)

    @Argument(help: "The database's name.")
    var name: String

    @Argument(help: "The key.")
    var key: String

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Judge expiry under this policy (default: the policy recorded in the database, else never): "
                + "\(PolicyArgument.help).", valueName: "policy"),
        transform: PolicyArgument.parse)
    var policy: PolicyArgument?

    @OptionGroup var collection: CollectionOption
    @OptionGroup var root: RootOptions
    @OptionGroup var output: JSONOption

    func run() throws {
        let (store, judgedBy) = try root.inspector.unchanged(name, policyOption: policy)
        defer { try? store.close() }
        let scope = collection.scope(in: store)
        try scope.requireIntactRecord(forKey: key, in: store, collection: collection.collection)
        if let sealed = scope.sealedRecordReport(forKey: key) {
            if output.json {
                print(try JSONOutput.pretty(sealed))
            } else {
                print("key          \(sealed.key)")
                if let name = collection.collection { print("collection   \(name)") }
                print("encrypted    yes, sealed by key \(sealed.sealedBy)")
                print("format       \(sealed.formatVersion) (checksum \(sealed.checksum))")
                if !sealed.tags.isEmpty { print("tags         \(sealed.tags.joined(separator: ", "))") }
            }
            throw CommandFailure.encrypted(1)
        }
        guard var report = try read(from: store, policy: judgedBy.policy) else {
            throw CommandFailure(
                status: .notFound,
                message: "no record with key \(key.debugDescription) in \(place). "
                    + "Run `\(keysCommand)` to see the keys.")
        }
        report.addEnvelope(forKey: key, in: scope, raw: rawReader(policy: judgedBy.policy))
        if output.json {
            print(try JSONOutput.pretty(report))
            return
        }
        print("key          \(report.key)")
        if let name = collection.collection { print("collection   \(name)") }
        print("codec        \(report.codec)")
        let compressed = report.envelope?.compressed == true
        let decompressed = compressed ? " (stored compressed, shown decompressed)" : ""
        print("shown as     \(report.shownAs.explanation)\(decompressed)")
        print("stored at    \(Format.date(report.storedAt))")
        let expiry = report.expiresAt.map(Format.date) ?? "never"
        print("expires at   \(expiry)\(report.expired ? " (expired)" : "")")
        print("policy       \(judgedBy.explanation)\(collectionPolicy(in: store))")
        if compressed {
            let model = report.uncompressedModelByteCount.map { ": \(Format.bytes($0)) uncompressed" } ?? ""
            let stored = Format.bytes(report.byteCount)
            print("size         \(stored) as stored (the model is compressed with Zstandard\(model))")
        } else {
            print("size         \(Format.bytes(report.byteCount))")
        }
        if let envelope = report.envelope {
            print("format       \(envelope.formatDescription)")
            if let metadata = envelope.metadata, let shownAs = envelope.metadataShownAs {
                let json = String(decoding: try JSONOutput.compact(metadata), as: UTF8.self)
                print("metadata     \(json) (\(shownAs.explanation))")
            } else if let base64 = envelope.metadataBase64, let codec = envelope.metadataCodec {
                print("metadata     \(base64) (base64 of the \(codec) codec's bytes)")
            } else {
                print("metadata     none")
            }
            if !envelope.tags.isEmpty { print("tags         \(envelope.tags.joined(separator: ", "))") }
        }
        if let value = report.value {
            print(try JSONOutput.pretty(value))
        } else if let payload = report.payloadBase64, let note = report.note {
            print("note         \(note)")
            print(payload)
        }
    }

    /// The record as JSON, or as raw bytes when its codec is not one the tool can decode.
    /// Where the key was looked for, for the not-found message.
    private var place: String {
        let database = "database \(name.debugDescription)"
        return collection.collection.map { "collection \($0.debugDescription) of \(database)" } ?? database
    }

    /// The command that lists the keys where this one was looked for.
    private var keysCommand: ToolCommand {
        .keys(name, collection: collection.collection, root: root.storeRoot.path)
    }

    /// Reads the record's raw bytes, judging expiry by `policy`.
    private func rawReader(policy: UpdatePolicy) -> RawRecordReader {
        RawRecordReader(inspector: root.inspector, name: name, policy: policy, collection: collection.collection)
    }

    /// `; the collection's own: P` when the record's collection records a policy of its own,
    /// which its program stamped on the record as its own lifetime.
    private func collectionPolicy(in store: ModelStore) -> String {
        guard let name = collection.collection, let own = InspectionPolicy.collectionPolicy(name, in: store) else {
            return ""
        }
        return "; the collection's own: \(own)"
    }

    private func read(from store: ModelStore, policy: UpdatePolicy) throws -> RecordReport? {
        do {
            return try collection.scope(in: store).entry(InspectedValue.self, forKey: key).map {
                RecordReport($0, now: Date())
            }
        } catch ModelStoreError.decodingFailed(_, _, let message) {
            guard let (entry, codec) = try rawReader(policy: policy).entry(forKey: key),
                let report = RecordReport(entry, codec: codec, now: Date())
            else {
                throw CommandFailure(
                    status: .failure, message: "cannot show the record for key \(key.debugDescription): \(message).")
            }
            return report
        }
    }
}
