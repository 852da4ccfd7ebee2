@_spi(Inspection) import ModelStore

/// The exit codes `modelstore` documents, so scripts can tell failures apart.
enum ExitStatus: Int32 {
    /// The command did what was asked.
    case success = 0
    /// Something failed: damaged files, I/O, an undecodable record.
    case failure = 1
    /// The command line was wrong, or a name, key or policy is not allowed.
    case usage = 2
    /// The database or key does not exist.
    case notFound = 3
    /// Another process has the database open.
    case locked = 4
}

/// A failure the tool reports with a message (to stderr) and an ``ExitStatus``.
struct CommandFailure: Error, CustomStringConvertible {
    let status: ExitStatus
    let message: String

    var description: String { message }

    /// The database `name` is not under `root`.
    static func noDatabase(_ name: String, root: String) -> CommandFailure {
        CommandFailure(
            status: .notFound,
            message: "no database named \(name.debugDescription) under \(root). "
                + "Run `\(ToolCommand.list(root: root))` to see the databases there.")
    }

    /// `name` is not a name ModelStore accepts, whatever is on disk.
    static func invalidName(_ name: String, reason: String) -> CommandFailure {
        CommandFailure(
            status: .usage,
            message: "invalid database name \(name.debugDescription): \(reason). "
                + "Database names are single folder names without slashes or control characters.")
    }

    /// `name` under `root` is something ModelStore did not create (`what` says what).
    static func notADatabase(_ name: String, what: String, root: String) -> CommandFailure {
        CommandFailure(
            status: .notFound,
            message: "\(name.debugDescription) under \(root) is not a ModelStore database (it is \(what)); "
                + "modelstore leaves it untouched. Run `\(ToolCommand.list(root: root))` to see the databases there.")
    }

    /// Wraps any error: ModelStore's errors are said in the tool's words, with the matching
    /// status (``init(storeError:)``).
    init(_ error: any Error) {
        switch error {
        case let failure as CommandFailure:
            self = failure
        case let error as ModelStoreError:
            self.init(storeError: error)
        default:
            self.init(status: .failure, message: String(describing: error))
        }
    }

    init(status: ExitStatus, message: String) {
        self.status = status
        self.message = message
    }
}
