public import Foundation

/// A LevelDB database of `Codable` models that expire by policy.
///
/// Each store is one named database under a root directory. Open it, store models, read
/// them back; records older than the store's ``UpdatePolicy`` read as missing and are
/// removed.
///
/// ```swift
/// struct Book: Codable { var name: String; var price: Double }
/// struct User: Codable { var userName: String; var book: Book }
///
/// let store = try ModelStore(name: "userdb", policy: .low)          // records live 24 h
/// try store.set(User(userName: "ada", book: Book(name: "Notes", price: 9)), forKey: "user")
/// let cached: User? = try store.object(forKey: "user")              // nil if missing or expired
/// ```
///
/// ## Sharing
/// A `ModelStore` is `Sendable`: use one instance from many threads and tasks at once.
/// Opening the same database twice in a process shares one LevelDB handle, which closes
/// when its last store is closed or released. Another process that has the database open
/// makes the open fail quickly with ``ModelStoreError/locked(path:message:)``.
///
/// ## Errors
/// Every throwing method throws ``ModelStoreError``.
public final class ModelStore: ModelWriter {
    /// The longest key accepted, in UTF-8 bytes.
    public static let maximumKeyLength = 64 << 10

    /// The largest encoded record accepted, in bytes (LevelDB stores lengths in 32 bits).
    public static let maximumRecordLength = Int(UInt32.max) - (64 << 10)

    /// The database's name, one directory under ``Configuration/directory``.
    public let name: String

    /// The policy that decides when records expire.
    public let policy: UpdatePolicy

    /// The configuration the store was opened with.
    public let configuration: Configuration

    /// The database's directory.
    public let url: URL

    let database: OpenDatabase
    /// The store's own keys: every key-level call of the store forwards to it (see ``Scope``).
    @usableFromInline
    let scope: Scope

    /// The core every key-level call forwards to; not API.
    public var _scope: _Scope { scope }
    /// 1 once ``close()`` was called. Atomic, not locked: every call reads it (see
    /// ``Scope/open()``), and a lock every thread takes on each read would be the one place
    /// where reads from several threads wait for each other.
    private let closed = AtomicWord()
    private let sweeper = Locked<AutomaticSweeper?>(nil)

    /// Opens the database `name` under the configuration's root directory, creating it if
    /// it does not exist.
    ///
    /// ```swift
    /// let store = try ModelStore(name: "userdb", policy: .low)
    /// ```
    ///
    /// - Parameters:
    ///   - name: The database's name: 1 to 200 UTF-8 bytes with no `/`, `\`, NUL or control
    ///     characters, and not `.` or `..`.
    ///   - policy: When records expire. The open records it in the database, for tools and
    ///     other programs (see ``recordedPolicy()``): one read, and a write only when it
    ///     differs from the policy recorded there (the first one, in a new database, then goes
    ///     into a table file of its own, apart from the records written next).
    ///   - configuration: Root directory, clock, codec and LevelDB tuning.
    /// - Throws: ``ModelStoreError/invalidName(name:reason:)`` or
    ///   ``ModelStoreError/invalidPolicy(reason:)`` (for the policy or the configuration's
    ///   sweep interval, limits or object cache size) before anything is created on disk;
    ///   ``ModelStoreError/locked(path:message:)`` if another process has the database open;
    ///   ``ModelStoreError/notAModelStore(path:)`` if the name's directory is not ours (even an
    ///   empty folder: ModelStore only uses folders it created);
    ///   ``ModelStoreError/corrupted(path:message:)`` or ``ModelStoreError/io(path:message:)``
    ///   from LevelDB. A failed open never deletes anything.
    public init(name: String, policy: UpdatePolicy, configuration: Configuration = Configuration()) throws {
        // Everything is checked before anything touches the disk.
        try DatabaseName.validate(name)
        try policy.validate()
        try configuration.validate()
        let database = try DatabaseRegistry.shared.acquire(name: name, configuration: configuration)
        do {
            // Before anything reads or writes: a mismatched key changes nothing.
            if configuration.checksEncryption { try database.checkEncryption(configuration.encryption) }
        } catch {
            DatabaseRegistry.shared.release(database)
            throw error
        }
        self.database = database
        self.name = name
        self.policy = policy
        self.configuration = configuration
        let reader = RecordReader(
            policy: policy, configuration: configuration, path: database.path, dictionaries: database.dictionaries)
        scope = Scope(database: database, reader: reader, configuration: configuration, closed: closed)
        url = URL(fileURLWithPath: database.path, isDirectory: true)
        // The first store starts the limits' measurement (Eviction/LimitEnforcer.swift).
        database.limits?.storeOpened(reader: reader, database: database)
        // The first store opened with a shared tier attaches the database to it.
        database.sharedTier?.start(scope: scope)
        if configuration.recordsPolicies {
            // For `modelstore stats`: one read, a write only when the limits changed. Before the
            // policy, so that a new database's limits go out with its policy record into the
            // table of their own (StoredPolicies.record): left in the write buffer, a system
            // record sorts after every user key and makes the first flush overlap all later ones.
            RecordedLimits.record(configuration.limits, in: database, sync: configuration.syncWrites)
            // One read the first time in the process, a write only when the policy changed.
            database.policies.record(policy, for: .default, in: database, sync: configuration.syncWrites)
        }
        // An encrypting store trains no dictionary: it would keep its samples' plaintext.
        if configuration.recordCompression.isEnabled, !configuration.encryption.isEnabled,
            database.dictionaries.isCollecting
        {
            database.sampleStoredRecords(compression: configuration.recordCompression)
        }
        if let interval = configuration.automaticSweepInterval {
            let sweeper = AutomaticSweeper(store: self, interval: interval)
            self.sweeper.withLock { $0 = sweeper }
        }
    }

    deinit {
        sweeper.withLock { $0?.cancel() }
        if closed.load() == 0 {
            DatabaseRegistry.shared.release(database)
        }
    }

    /// Closes this instance. Later calls on it throw ``ModelStoreError/closed(path:)``.
    ///
    /// The database itself closes when the last instance, snapshot or enumeration using it
    /// in this process is closed or released. Closing twice does nothing.
    public func close() throws {
        let wasOpen = closed.setBits(1) == 0
        if wasOpen {
            sweeper.withLock { sweeper in
                sweeper?.cancel()
                sweeper = nil
            }
            DatabaseRegistry.shared.release(database)
        }
    }

    /// Whether ``close()`` was called on this instance or its database was deleted.
    public var isClosed: Bool {
        closed.load() != 0 || !database.engine.isOpen
    }
}

// MARK: - Keys

extension ModelStore {
    static func validate(key: String) throws(ModelStoreError) {
        let length = key.utf8.count
        if length == 0 { throw .invalidKey(key: key, reason: "the key is empty") }
        if length > maximumKeyLength {
            throw .invalidKey(key: key, reason: "the key is \(length) UTF-8 bytes")
        }
    }
}
