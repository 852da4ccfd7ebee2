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
    /// characters, or is longer than 200 UTF-8 bytes). Nothing was created on disk.
    case invalidName(name: String, reason: String)

    /// The key is not allowed (empty, or longer than ``ModelStore/maximumKeyLength`` bytes).
    case invalidKey(key: String, reason: String)

    /// The update policy or a per-record lifetime is not a positive, finite interval.
    case invalidPolicy(reason: String)

    /// Another process (or another open of the same directory under a different spelling)
    /// holds the database.
    case locked(path: String, message: String)

    /// LevelDB found damaged files. `message` is LevelDB's own.
    case corrupted(path: String, message: String)

    /// A file-system or LevelDB I/O error. `message` is LevelDB's or the system's own.
    case io(path: String, message: String)

    /// The store instance was closed, or its database was deleted.
    case closed(path: String)

    /// The directory for this name exists but was not created by ModelStore (or is a symbolic
    /// link), so ModelStore refuses to open or delete it.
    case notAModelStore(path: String)

    /// An earlier write failed (for example on a full disk), so this store refuses further
    /// writes until it is reopened; reads keep working. `message` is the first failure's.
    case writesDisabled(path: String, message: String)

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
}

extension ModelStoreError: CustomStringConvertible {
    /// A sentence saying what went wrong and what to do about it.
    public var description: String {
        switch self {
        case let .invalidName(name, reason):
            return "Invalid database name \(name.debugDescription): \(reason). Use a short name without slashes "
                + "or control characters."
        case let .invalidKey(key, reason):
            return "Invalid key \(Self.abbreviated(key)): \(reason)."
        case let .invalidPolicy(reason):
            return "Invalid update policy: \(reason). Use a positive, finite number of seconds or .never."
        case let .locked(path, message):
            return "The database at \(path) is in use by another process (\(message)). Close it there first, "
                + "or open a different database."
        case let .corrupted(path, message):
            return "The database at \(path) is damaged (\(message)). Repair it with ModelStore.repair(named:) "
                + "or delete it if it only holds a cache."
        case let .io(path, message):
            return "An I/O error occurred on the database at \(path) (\(message)). Check free disk space, "
                + "permissions and the open-file limit."
        case let .closed(path):
            return "The store for \(path) is closed or its database was deleted; open a new ModelStore."
        case let .notAModelStore(path):
            return "\(path) was not created by ModelStore (or is a symbolic link), so it is left untouched. "
                + "Choose another name or move that folder away."
        case let .writesDisabled(path, message):
            return "Writes to the database at \(path) are disabled after an earlier write failed (\(message)). "
                + "Free disk space or fix the I/O problem, then reopen the store."
        case let .valueTooLarge(key, byteCount):
            return "The record for key \(Self.abbreviated(key)) is \(byteCount) bytes, larger than LevelDB accepts."
        case let .encodingFailed(key, type, message):
            return "Could not encode \(type) for key \(Self.abbreviated(key)): \(message)."
        case let .decodingFailed(key, type, message):
            return "The record for key \(Self.abbreviated(key)) does not decode as \(type): \(message). "
                + "The record was left untouched."
        case let .readThroughTypeMismatch(key, requested, inFlight):
            return "A read-through of key \(Self.abbreviated(key)) as \(requested) found a fetch for the same key "
                + "as \(inFlight) in progress, so nothing was fetched for it. Read each key as one model type."
        }
    }

    /// Keeps messages readable when a key is huge or binary.
    private static func abbreviated(_ key: String) -> String {
        let limit = 80
        if key.count <= limit { return key.debugDescription }
        return String(key.prefix(limit)).debugDescription + "… (\(key.utf8.count) bytes)"
    }
}
