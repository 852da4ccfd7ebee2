import Foundation
import Logging
import ModelStore

/// Opens databases for the tool's commands, without ever creating one.
///
/// Two kinds of store are handed out:
/// - ``unchanged(_:policy:)`` for looking inside. ModelStore deletes an expired record when
///   a read comes across it, and an inspection must not change what it inspects, so this
///   store's clock is frozen before any record was written: every record reads as fresh and
///   nothing is purged. Entries still carry their real `expiresAt` (from the policy), and
///   the tool judges expiry itself against the real time.
/// - ``current(_:policy:)`` with the real clock, for counting what is live and for sweeping.
///
/// Neither records a policy in the database (a program's open does): the variants that take a
/// `policyOption` judge by `--policy`, else by the policy the database records.
///
/// Both read a private copy of the database (see ``PrivateCopies``), never the database itself,
/// so they change none of its files and work while another process holds it. The commands that
/// change a database (`sweep`, `remove`, `compact`) open the database itself through
/// ``writable(_:policy:freezesClock:)``.
struct Inspector {
    /// The root the databases live under.
    let root: StoreRoot

    /// Fails unless `name` is a database under the root: with ``ExitStatus/usage`` for a name
    /// ModelStore never accepts, and ``ExitStatus/notFound`` when there is no database of
    /// that name (nothing there, or a folder, file or link ModelStore did not create).
    func requireDatabase(_ name: String) throws {
        switch root.lookUp(name) {
        case .database:
            return
        case .invalidName(let reason):
            throw CommandFailure.invalidName(name, reason: reason)
        case .missing:
            try root.requireDirectory()
            throw CommandFailure.noDatabase(name, root: root.path)
        case .notADatabase(let what):
            throw CommandFailure.notADatabase(name, what: what, root: root.path)
        }
    }

    /// A store that shows every record as it is on disk and changes nothing.
    ///
    /// - Parameter codec: The codec that decodes records of its own identifier; by default
    ///   the JSON codec behind ``InspectedValue``.
    func unchanged(_ name: String, policy: UpdatePolicy = .never, codec: (any ModelCodec)? = nil) throws -> ModelStore {
        var configuration = baseConfiguration
        configuration.now = { Date.distantPast }
        if let codec { configuration.codec = codec }
        return try openCopy(name, policy: policy, configuration: configuration)
    }

    /// A store with the real clock, for live counts.
    func current(_ name: String, policy: UpdatePolicy = .never) throws -> ModelStore {
        try openCopy(name, policy: policy, configuration: baseConfiguration)
    }

    /// The database itself, for the commands that change it: with the real clock (a sweep, a
    /// removal), or with the clock frozen as in ``unchanged(_:policy:codec:)`` (a compaction).
    func writable(_ name: String, policy: UpdatePolicy = .never, freezesClock: Bool = false) throws -> ModelStore {
        var configuration = baseConfiguration
        if freezesClock { configuration.now = { Date.distantPast } }
        return try open(name, policy: policy, configuration: configuration)
    }

    /// ``unchanged(_:policy:codec:)`` under the policy a command judges expiry by (see
    /// ``InspectionPolicy``): `option`, else the one recorded in the database, else `never`.
    func unchanged(
        _ name: String, policyOption option: PolicyArgument?, codec: (any ModelCodec)? = nil
    ) throws -> (store: ModelStore, policy: InspectionPolicy) {
        let probe = try unchanged(name, codec: codec)
        let policy = InspectionPolicy(option: option, recordedIn: probe)
        guard policy.policy != probe.policy else { return (probe, policy) }
        // Opened while the probe is still open, so LevelDB is not opened a second time.
        defer { try? probe.close() }
        return (try unchanged(name, policy: policy.policy, codec: codec), policy)
    }

    /// ``current(_:policy:)`` under the policy a command judges expiry by, as
    /// ``unchanged(_:policyOption:codec:)``.
    func current(_ name: String, policyOption option: PolicyArgument?) throws -> (store: ModelStore, policy: InspectionPolicy) {
        let probe = try current(name)
        let policy = InspectionPolicy(option: option, recordedIn: probe)
        guard policy.policy != probe.policy else { return (probe, policy) }
        defer { try? probe.close() }
        return (try current(name, policy: policy.policy), policy)
    }

    private var baseConfiguration: ModelStore.Configuration {
        var configuration = ModelStore.Configuration()
        configuration.directory = root.url
        configuration.codec = InspectedValue.inspectionCodec
        configuration.logger = Self.logger
        // Inspecting changes nothing: unfinished deletions are left for `delete`/`delete-all`.
        configuration.finishesInterruptedDeletions = false
        // Nor does it record the policy it judges by: the database keeps its program's.
        configuration.recordsPolicies = false
        return configuration
    }

    /// ModelStore's messages go to standard error, warnings and worse only: standard output
    /// carries the tool's results, which scripts parse.
    static let logger: Logger = {
        var logger = Logger(label: "modelstore", factory: { StreamLogHandler.standardError(label: $0) })
        logger.logLevel = .warning
        return logger
    }()

    /// Opens this process's private copy of `name` (made on first use).
    private func openCopy(
        _ name: String, policy: UpdatePolicy, configuration: ModelStore.Configuration
    ) throws -> ModelStore {
        try requireDatabase(name)
        var configuration = configuration
        configuration.directory = try PrivateCopies.root(for: name, in: root)
        return try ModelStore(name: name, policy: policy, configuration: configuration)
    }

    private func open(
        _ name: String, policy: UpdatePolicy, configuration: ModelStore.Configuration
    ) throws -> ModelStore {
        // Checked first: opening a name that does not exist would create an empty database.
        try requireDatabase(name)
        return try Self.retryingWhileLocked {
            try ModelStore(name: name, policy: policy, configuration: configuration)
        }
    }

    /// Runs `body`, retrying it for a quarter of a second while the database reads as locked.
    ///
    /// A database another process is just closing reads as locked for a moment (and a process
    /// that spawns children keeps its lock in each child until that child execs), so only a
    /// lock that lasts is reported.
    static func retryingWhileLocked<Result>(_ body: () throws -> Result) throws -> Result {
        var attempt = 0
        while true {
            do {
                return try body()
            } catch ModelStoreError.locked where attempt < 10 {
                attempt += 1
                Thread.sleep(forTimeInterval: 0.025)
            }
        }
    }
}
