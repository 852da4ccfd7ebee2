@_spi(Inspection) import ModelStore

// MARK: - ModelStore's errors in the tool's words
//
// The library's descriptions advise calls of its API (`ModelStore.repair(named:)`,
// `replacingExisting: true`, `defineIndex(_:of:version:_:)`, `ModelStore.rekey(...)`), which
// a person at a shell cannot make. Every case is said again here with the command or option of
// the tool that helps, built from the error's own path, so the tool never prints API advice
// (`CommandLineAdviceTests` checks every message against the tool's real commands and options).
// The commands that meet a case in a way of their own (`restore` on an existing name, `backup`
// to an existing folder, `query` on an unknown index) say so themselves first.

extension CommandFailure {
    /// `error` as the tool reports it: its exit status, and a message whose advice is the tool's.
    init(storeError error: ModelStoreError) {
        self.init(status: Self.status(for: error), message: Self.message(for: error))
    }

    /// The exit status the tool documents for `error`.
    static func status(for error: ModelStoreError) -> ExitStatus {
        switch error {
        case .locked: .locked
        case .invalidName, .invalidKey, .invalidPolicy, .invalidTag: .usage
        case .notAModelStore, .indexNotDefined: .notFound
        default: .failure
        }
    }

    /// What the tool prints for `error`.
    static func message(for error: ModelStoreError) -> String {
        switch error {
        case .invalidName, .invalidKey, .invalidPolicy, .invalidTag, .io, .valueTooLarge, .encodingFailed,
            .decodingFailed:
            // Their descriptions say what is wrong and advise no call.
            return error.description
        case let .locked(path, message) where message.hasPrefix(ModelStoreError.openInThisProcessReason):
            // Work that needs the database alone found a store of the tool's own on it.
            return "the database at \(path) is in use, so nothing was changed; run the command again."
        case let .locked(path, message):
            return "the database at \(path) is in use by another process (\(ModelStoreError.clause(message))). "
                + "Close it there first; the commands that only read it (`list`, `stats`, `keys`, `get`, `dump`, "
                + "`collections`, `indexes`, `query`, `backup`) work while it is open."
        case let .corrupted(path, message) where ModelStoreError.isAboutOneRecord(message):
            return "the database at \(path) holds a damaged record: \(ModelStoreError.toolAdvice(forDamagedRecord: message))."
        case let .corrupted(path, message):
            let clause = ModelStoreError.clause(message)
            // Some messages already name the command that helps (an interrupted repair's).
            guard !clause.contains("`modelstore ") else { return "the database at \(path) is damaged: \(clause)." }
            let (root, name) = ToolCommand.split(path)
            let repair = ToolCommand("repair", [name], options: [.init("root", root)])
            let delete = ToolCommand("delete", [name], options: [.init("root", root)])
            return "the database at \(path) is damaged (\(clause)). Repair it with `\(repair)`, or delete it with "
                + "`\(delete)` if it only holds a cache."
        case let .closed(path):
            return "the database at \(path) was closed or deleted while the command ran; run the command again."
        case let .notAModelStore(path):
            let (root, _) = ToolCommand.split(path)
            return "\(path) was not created by ModelStore (or is a symbolic link), so modelstore leaves it untouched. "
                + "Run `\(ToolCommand.list(root: root))` to see the databases there."
        case let .notADirectory(path):
            return "\(path) is a file, not a directory, so it cannot hold databases; it is left untouched. Pass a "
                + "directory with `--root`, or move the file away."
        case let .rootIsADatabase(path):
            let (parent, _) = ToolCommand.split(path)
            return "\(path) is itself a ModelStore database, so it cannot hold other databases; it is left untouched. "
                + "Its folder holds it: `\(ToolCommand.list(root: parent))`."
        case let .writesDisabled(path, message):
            return "writing to the database at \(path) failed (\(ModelStoreError.clause(message))), so nothing more was "
                + "written. Free disk space or fix the I/O problem, then run the command again."
        case let .directoryRemoved(path):
            return "the folder of the database at \(path) was deleted or replaced while the command ran, so nothing "
                + "more was written."
        case let .alreadyExists(path):
            return "\(path) already exists, so nothing was written over it. Choose another name or destination."
        case let .indexNotDefined(index, collection):
            return "the database records no index \(ModelStoreError.abbreviated(index)) on "
                + "\(ModelStoreError.place(collection))."
        case let .indexNotBuilt(index, collection):
            return "the index \(ModelStoreError.abbreviated(index)) on \(ModelStoreError.place(collection)) is not built "
                + "yet: the program that defines it finishes its build the next time it defines it."
        case let .indexerFailed(index, key, message):
            return "the indexer of \(ModelStoreError.abbreviated(index)) failed for the record of key "
                + "\(ModelStoreError.abbreviated(key)) (\(ModelStoreError.clause(message))); nothing was written."
        case let .readThroughTypeMismatch(key, requested, inFlight):
            return "a read of key \(ModelStoreError.abbreviated(key)) as \(requested) met one as \(inFlight); nothing "
                + "was read."
        case let .fetchTimedOut(key, after):
            return "the fetch for key \(ModelStoreError.abbreviated(key)) took longer than \(after)."
        case let .notModifiedWithoutRecord(key):
            return "a fetch answered that key \(ModelStoreError.abbreviated(key)) was not modified, but no record of it "
                + "is stored."
        case let .encryptionMismatch(path, mismatch):
            return message(forEncryptionMismatch: mismatch, path: path)
        }
    }

    private static func message(forEncryptionMismatch mismatch: ModelStoreError.EncryptionMismatch, path: String) -> String {
        switch mismatch {
        case .keyRequired:
            return "the database at \(path) is encrypted; nothing was read. Give its key with `--key-file`."
        case .notEncrypted:
            return "the database at \(path) is not encrypted, and a key was given; nothing was read. Run the command "
                + "without `--key-file`."
        case .wrongKey:
            return "the database at \(path) is encrypted with another key than the one in `--key-file`; nothing was "
                + "read. Give the file of the key it was encrypted with."
        case .rekeyingUnfinished:
            return "a re-keying of the database at \(path) was interrupted, so its records are under two keys; nothing "
                + "was read. The program that re-keys it must run the re-keying again with the same keys to finish "
                + "it (modelstore cannot re-key)."
        }
    }
}
