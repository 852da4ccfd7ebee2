import Foundation

// MARK: - One damaged record in a healthy database
//
// A record whose bytes fail its own checksum is one damaged record, not a damaged database:
// LevelDB's files are fine, every other record reads, and no repair can bring its bytes back
// (LevelDB's repair keeps the record exactly as it is). So its error says which record, and the
// three things that help: go on past it (a cursor continues after it), write the key again, or
// remove it, through the API or the `modelstore` tool, with the exact command. It never
// suggests repairing or deleting the database: the first does nothing for it, the second loses
// every other record.
//
// It stays a `corrupted` error (callers switch on that); its message starts with
// `damagedRecordPrefix`, which tells `description` not to add the database-wide advice.

extension ModelStoreError {
    /// How the message of every error about one damaged record starts.
    static let damagedRecordPrefix = "the record for key "

    /// The longest key (in UTF-8 bytes) a damaged record's message repeats in its command.
    static let maximumQuotedKeyLength = 1_024

    /// The error for the record `key` of the database at `path` (in `collection`, nil for the
    /// store's own keys) that cannot be trusted; `reason` says why, as a clause (for example
    /// "fails its checksum: its bytes were damaged, or it was copied from another key").
    @_spi(Inspection)
    public static func damagedRecord(
        path: String, key: String, collection: String?, reason: String
    ) -> ModelStoreError {
        let place = collection.map { " in collection \(abbreviated($0))" } ?? ""
        let removal = collection == nil ? "removeObject(forKey:)" : "the collection's removeObject(forKey:)"
        let command = ToolCommand.remove(databasePath: path, key: key, collection: collection)
        let shell: String
        if !command.canBeTyped {
            shell = ""  // a NUL byte in the key or the collection name: no shell can pass it
        } else if key.utf8.count <= maximumQuotedKeyLength {
            shell = ", or run `\(command)`"
        } else {
            let (root, name) = ToolCommand.split(path)
            let repair = ToolCommand("repair", [name], options: [.init("root", root)])
            shell = ", or run `\(repair)`, which lists the command that removes it (the key is too long to repeat here)"
        }
        return .corrupted(
            path: path,
            message: damagedRecordPrefix + "\(abbreviated(key))\(place) \(clause(reason)). Only this record is "
                + "affected, and repairing the database does not change it." + apiAdviceStart + " goes on after "
                + "it when next() is called again. To get rid of it, write the key again, or remove it with "
                + "\(removal)\(shell)")
    }

    /// Where the advice for the API's callers starts in a damaged record's message.
    private static let apiAdviceStart = " A cursor that threw this"
    /// Where the shell command starts in the advice.
    private static let shellAdviceStart = ", or run `"

    /// A damaged record's `message` (of ``damagedRecord(path:key:collection:reason:)``) for a
    /// person at a shell: what is wrong, then only the `modelstore` command that removes the record
    /// (the API's calls are of no use there). As a clause, without a final period.
    @_spi(Inspection)
    public static func toolAdvice(forDamagedRecord message: String) -> String {
        guard let advice = message.range(of: apiAdviceStart) else { return clause(message) }
        let what = String(message[..<advice.lowerBound])
        guard let shell = message.range(of: shellAdviceStart, range: advice.upperBound..<message.endIndex) else {
            return what + " Its key or collection name holds a NUL byte, which no command line can pass: remove it "
                + "through the program that wrote it"
        }
        return what + " To get rid of it, run `" + clause(String(message[shell.upperBound...]))
    }

    /// ``damagedRecord(path:key:collection:reason:)`` for a record that fails its checksum, as
    /// reads throw it.
    @_spi(Inspection)
    public static func checksumMismatch(path: String, key: String, collection: String?) -> ModelStoreError {
        damagedRecord(path: path, key: key, collection: collection, reason: RecordReader.checksumMismatchReason)
    }

    /// ``damagedRecord(path:key:collection:reason:)`` for a record found under its physical
    /// LevelDB key (which says its collection).
    static func damagedRecord(path: String, key: String, physicalKey: UnsafeRawBufferPointer, reason: String)
        -> ModelStoreError
    {
        damagedRecord(path: path, key: key, collection: KeySpace.split(physicalKey)?.space.collection, reason: reason)
    }

    /// Whether a `corrupted` message is about one damaged record rather than the database.
    @_spi(Inspection)
    public static func isAboutOneRecord(_ message: String) -> Bool {
        message.hasPrefix(damagedRecordPrefix)
    }
}
