/// The one error type ModelStore throws.
///
/// Switch on the case to decide what to do; the associated values say which database, key or
/// type was involved and keep LevelDB's own message where there is one. For example:
///
/// ```swift
/// do {
///     let store = try ModelStore(name: "users", policy: .low)
///     // ...
/// } catch ModelStoreError.locked {
///     print("Another process has the database open; try again later.")
/// } catch let error as ModelStoreError {
///     print(error)   // a sentence that says what happened and what to do
/// }
/// ```
public enum ModelStoreError: Error, Sendable, Hashable {
    /// The database name is not allowed (empty, `.`, `..`, contains `/`, `\`, NUL or control
    /// characters, is longer than 200 UTF-8 bytes, or starts with a prefix ModelStore reserves
    /// for its own folders: `.modelstore-new-`, `.modelstore-trash-`). Nothing was created on disk.
    ///
    /// Also thrown for a collection name (``ModelStore/collection(_:)``) that is not 1 to 255
    /// UTF-8 bytes without NUL; its reason then starts with "the collection name", and its
    /// description speaks of a collection. Nothing was written.
    case invalidName(name: String, reason: String)

    /// The key is not allowed (empty, or longer than ``ModelStore/maximumKeyLength`` bytes).
    case invalidKey(key: String, reason: String)

    /// The update policy, a per-record lifetime or an expiry setting of the configuration
    /// (sweep interval, limits, object cache size) is out of range. `reason` names the setting
    /// and its valid values. Nothing was created on disk.
    case invalidPolicy(reason: String)

    /// Another process (or another open of the same directory under a different spelling)
    /// holds the database.
    case locked(path: String, message: String)

    /// LevelDB found damaged files (`message` is LevelDB's own), or one record cannot be trusted:
    /// it fails its checksum (`message` then starts with "the record for key", names the key and
    /// its collection, and says how to skip it or remove it; the rest of the database is fine).
    case corrupted(path: String, message: String)

    /// A file-system or LevelDB I/O error. `message` is LevelDB's or the system's own.
    case io(path: String, message: String)

    /// The store instance was closed, or its database was deleted.
    case closed(path: String)

    /// The directory for this name exists but was not created by ModelStore (or is a symbolic
    /// link), so ModelStore refuses to open or delete it.
    case notAModelStore(path: String)

    /// The root directory (``ModelStore/Configuration/directory``), or a folder on its path, is a
    /// file or something else that is not a directory. `path` names it; it is left untouched.
    case notADirectory(path: String)

    /// The root directory is itself a ModelStore database (it holds the `.modelstore` marker),
    /// so databases created in it would live inside another database's folder and go with it
    /// when that one is deleted. It is left untouched; choose another directory.
    case rootIsADatabase(path: String)

    /// An earlier write failed (for example on a full disk), so this store refuses further
    /// writes until it is reopened; reads keep working. `message` is the first failure's.
    case writesDisabled(path: String, message: String)

    /// The database's directory was deleted (or moved away and replaced) while it was open, for
    /// example by a cache cleaner, so this instance refuses writes that could not survive.
    /// Open a new ``ModelStore``: it gets a fresh database at that path.
    case directoryRemoved(path: String)

    /// The encoded record is larger than LevelDB accepts (its lengths are 32-bit).
    case valueTooLarge(key: String, byteCount: Int)

    /// The model could not be encoded. `message` describes the encoder's error.
    case encodingFailed(key: String, type: String, message: String)

    /// The stored record could not be decoded as the requested type. The record is left as
    /// it is. `message` describes the decoder's error.
    case decodingFailed(key: String, type: String, message: String)

    /// A read-through call (``ModelStore/ModelStore/object(_:forKey:expiresAfter:staleIfError:fetch:)``)
    /// asked for `requested` while a fetch for the same key, started by a call that asked for
    /// `inFlight`, was running. Nothing was fetched for this call; use one model type per key.
    case readThroughTypeMismatch(key: String, requested: String, inFlight: String)

    /// A tag is not allowed (empty, or longer than 1,024 UTF-8 bytes). Nothing was written.
    case invalidTag(tag: String, reason: String)

    /// A read-through call waited ``ReadThroughOptions/hardTimeout`` (`after`: what it waited,
    /// at most a year) for the fetch of `key` and had no stale record it was allowed to return.
    /// The fetch goes on in the background and stores its result for later reads.
    case fetchTimedOut(key: String, after: Duration)

    /// A read-through fetch answered ``FetchResult/notModified(expiresAfter:)`` but no record
    /// was stored for `key` to keep. Answer `.value` when the fetch was given no entry.
    case notModifiedWithoutRecord(key: String)

    /// A backup or restore would have replaced what is at `path` (a database, or anything
    /// else), and was not asked to: nothing was changed. Restore with
    /// `replacingExisting: true` to replace a database, or choose another name or destination.
    case alreadyExists(path: String)

    /// A query named an index that this process has not defined on the collection (nil: the
    /// store's own keys). Call ``ModelWriter/defineIndex(_:of:version:progress:_:)`` when the
    /// store opens, before writing or querying.
    case indexNotDefined(index: String, collection: String?)

    /// A query named an index whose build from the stored records has not finished (it was
    /// cancelled, or failed, or runs on another thread). Call
    /// ``ModelWriter/defineIndex(_:of:version:progress:_:)`` again: it goes on where the build stopped.
    case indexNotBuilt(index: String, collection: String?)

    /// An indexer threw for the model of `key`; the write (or the build's chunk) was not
    /// applied: nothing of it was written.
    case indexerFailed(index: String, key: String, message: String)

    /// The database's encryption and the store's ``ModelStore/Configuration/encryption`` do not
    /// match (`mismatch` says how), or an interrupted re-keying must be finished first. Nothing
    /// was read or written: open it with the right key, or change its key with
    /// `ModelStore.rekey(named:in:from:to:progress:)`.
    case encryptionMismatch(path: String, mismatch: EncryptionMismatch)
}

extension ModelStoreError {
    /// How a database's encryption and a store's configuration disagree.
    public enum EncryptionMismatch: Sendable, Hashable {
        /// The database is encrypted and the store has no key.
        case keyRequired
        /// The store has a key and the database is not encrypted (and holds records, or a store
        /// without a key has it open in this process).
        case notEncrypted
        /// The store's key is not the one the database is encrypted with (or the key given as
        /// `from` to a re-keying is not).
        case wrongKey
        /// A re-keying of the database was interrupted: run `ModelStore.rekey(named:in:from:to:progress:)`
        /// again with the same keys to finish it.
        case rekeyingUnfinished
    }
}

extension ModelStoreError: CustomStringConvertible {
    /// A sentence saying what went wrong and what to do about it.
    public var description: String {
        switch self {
        case let .invalidName(name, reason) where reason.hasPrefix(KeySpace.nameReasonPrefix):
            return "Invalid collection name \(Self.abbreviated(name)): \(Self.clause(reason)). Use 1 to "
                + "\(KeySpace.maximumNameLength) UTF-8 bytes without NUL"
        case let .invalidName(name, reason) where reason.hasPrefix(DefinedIndex.nameReasonPrefix):
            return "Invalid index name \(Self.abbreviated(name)): \(Self.clause(reason)). Use 1 to "
                + "\(DefinedIndex.maximumNameLength) UTF-8 bytes"
        case let .invalidName(name, reason):
            return "Invalid database name \(name.debugDescription): \(Self.clause(reason)). Use 1 to 200 UTF-8 "
                + "bytes without slashes, backslashes, NUL or control characters, that is not a single or double "
                + "dot and does not start with .modelstore-new- or .modelstore-trash-"
        case let .invalidKey(key, reason):
            return "Invalid key \(Self.abbreviated(key)): \(Self.clause(reason)). "
                + "Use 1 to \(ModelStore.maximumKeyLength) UTF-8 bytes."
        case let .invalidPolicy(reason):
            // The reason names the valid values: they differ between a policy, a record's
            // lifetime, the sweep interval and the limits.
            return "Invalid setting: \(Self.clause(reason))."
        case let .locked(path, message) where message.hasPrefix(Self.openInThisProcessReason):
            // Work that needs the database alone (a re-keying) and found a store of this process on it.
            return "The database at \(path) is open in this process (\(Self.clause(message))), so nothing was "
                + "changed. Close them, then try again."
        case let .locked(path, message):
            return "The database at \(path) is in use by another process (\(Self.clause(message))). "
                + "Close it there first, or open a different database."
        case let .corrupted(path, message) where Self.isAboutOneRecord(message):
            return "The database at \(path) holds a damaged record: \(Self.clause(message))."
        case let .corrupted(path, message):
            return "The database at \(path) is damaged (\(Self.clause(message))). Repair it with "
                + "ModelStore.repair(named:) or delete it if it only holds a cache."
        case let .io(path, message):
            return "An I/O error occurred on the database at \(path) (\(Self.clause(message))). Check free disk "
                + "space, permissions and the open-file limit."
        case let .closed(path):
            return "The store for \(path) is closed or its database was deleted; open a new ModelStore."
        case let .notAModelStore(path):
            return "\(path) was not created by ModelStore (or is a symbolic link), so it is left untouched. "
                + "Choose another name or move it away."
        case let .notADirectory(path):
            return "\(path) is a file, not a directory, so it cannot hold databases; it is left untouched. Set "
                + "ModelStore.Configuration.directory to a directory (a missing one is created), or move the file away."
        case let .rootIsADatabase(path):
            return "\(path) is itself a ModelStore database, so it cannot hold other databases; it is left "
                + "untouched. Set ModelStore.Configuration.directory to another directory, or move that database "
                + "away (for example out of the way of a default directory named like it)."
        case let .writesDisabled(path, message):
            return "Writes to the database at \(path) are disabled after an earlier write failed "
                + "(\(Self.clause(message))). Free disk space or fix the I/O problem, then reopen the store."
        case let .directoryRemoved(path):
            return "The directory of the database at \(path) was deleted or replaced while the database was open "
                + "(a cache cleaner?), so writes to it cannot be kept. Open a new ModelStore: it starts a fresh "
                + "database there."
        case let .valueTooLarge(key, byteCount):
            return "The record for key \(Self.abbreviated(key)) is \(byteCount) bytes, larger than LevelDB accepts."
        case let .encodingFailed(key, type, message):
            return "Could not encode \(type) for key \(Self.abbreviated(key)): \(Self.clause(message))."
        case let .decodingFailed(key, type, message):
            return "The record for key \(Self.abbreviated(key)) does not decode as \(type): \(Self.clause(message)). "
                + "The record was left untouched."
        case let .readThroughTypeMismatch(key, requested, inFlight):
            return "A read-through of key \(Self.abbreviated(key)) as \(requested) found a fetch for the same key "
                + "as \(inFlight) in progress, so nothing was fetched for it. Read each key as one model type."
        case let .invalidTag(tag, reason):
            return "Invalid tag \(Self.abbreviated(tag)): \(Self.clause(reason)). Use 1 to 1024 UTF-8 bytes."
        case let .fetchTimedOut(key, after):
            return "The fetch for key \(Self.abbreviated(key)) took longer than the hard timeout (\(after)) and no "
                + "stale record could be served; it goes on in the background. Retry later, raise "
                + "ReadThroughOptions.hardTimeout, or set staleIfError to serve an expired record."
        case let .encryptionMismatch(path, mismatch):
            switch mismatch {
            case .keyRequired:
                return "The database at \(path) is encrypted and the store has no key; nothing was read or written. "
                    + "Set ModelStore.Configuration.encryption to .aes256GCM(key:) with its key."
            case .notEncrypted:
                return "The database at \(path) is not encrypted and the store was given a key; nothing was read or "
                    + "written. Open it without a key, or encrypt it first with ModelStore.rekey(named:in:from: nil, to: key) "
                    + "(an empty database takes the key of the first store that opens it with one, once no store "
                    + "without a key has it open in this process)."
            case .wrongKey:
                return "The database at \(path) is encrypted with another key than the one given; nothing was read "
                    + "or written. Use the key it was encrypted with."
            case .rekeyingUnfinished:
                return "A re-keying of the database at \(path) was interrupted; nothing was read or written. Run "
                    + "ModelStore.rekey(named:in:from:to:) again with the same keys to finish it."
            }
        case let .notModifiedWithoutRecord(key):
            return "The fetch for key \(Self.abbreviated(key)) answered notModified, but no record is stored to "
                + "keep. Return .value when the fetch's previous entry is nil."
        case let .alreadyExists(path):
            return "\(path) already exists, so nothing was written over it. Choose another destination or name, "
                + "or restore with replacingExisting: true to replace a database there."
        case let .indexNotDefined(index, collection):
            return "No index \(Self.abbreviated(index)) is defined on \(Self.place(collection)) in this process. Call "
                + "defineIndex(_:of:version:_:) for it each time the store opens, before writing or querying."
        case let .indexNotBuilt(index, collection):
            return "The index \(Self.abbreviated(index)) on \(Self.place(collection)) is not built yet (its build was "
                + "cancelled, failed or is still running). Call defineIndex(_:of:version:_:) again to finish it."
        case let .indexerFailed(index, key, message):
            return "The indexer of \(Self.abbreviated(index)) threw for the record of key \(Self.abbreviated(key)) "
                + "(\(Self.clause(message))), so nothing was written. Fix the indexer or the model."
        }
    }

    /// How the message of a ``locked(path:message:)`` starts when this process, not another,
    /// holds the database that work needing it alone (a re-keying) was refused.
    @_spi(Inspection)
    public static let openInThisProcessReason = "a store of it is open in this process"

    /// The failure in a few words, without advice, for a later error that quotes it
    /// (``writesDisabled(path:message:)``): quoting the whole description would repeat its advice.
    var failureSummary: String {
        switch self {
        case let .locked(_, message), let .corrupted(_, message), let .io(_, message),
            let .writesDisabled(_, message):
            return Self.clause(message)
        default:
            return Self.clause(description)
        }
    }

    /// `text` as a clause to embed in a sentence: without surrounding spaces or a final period,
    /// which Foundation's and LevelDB's messages often end with, so that the sentence built
    /// around it never ends in "..".
    @_spi(Inspection)
    public static func clause(_ text: String) -> String {
        var clause = Substring(text)
        while let last = clause.last, last == "." || last.isWhitespace {
            clause = clause.dropLast()
        }
        while let first = clause.first, first.isWhitespace {
            clause = clause.dropFirst()
        }
        return String(clause)
    }

    /// A collection as messages name it: the store's own keys for nil.
    @_spi(Inspection)
    public static func place(_ collection: String?) -> String {
        collection.map { "the collection " + abbreviated($0) } ?? "the store's own keys"
    }

    /// Keeps messages readable when a key is huge or binary.
    @_spi(Inspection)
    public static func abbreviated(_ key: String) -> String {
        let limit = 80
        if key.count <= limit { return key.debugDescription }
        return String(key.prefix(limit)).debugDescription + "… (\(key.utf8.count) bytes)"
    }
}
