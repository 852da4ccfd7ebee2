import ArgumentParser
import Foundation
import ModelStore

/// `--root`, shared by every command.
struct RootOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "The directory that holds the databases (default: \(ModelStore.defaultDirectory.path)).",
            valueName: "path"))
    var root: String?

    /// The root to work in.
    var storeRoot: StoreRoot {
        StoreRoot(url: root.map { URL(fileURLWithPath: $0, isDirectory: true) } ?? ModelStore.defaultDirectory)
    }

    /// ` --root PATH` when a root was given, for commands the tool suggests in messages.
    var suggestionSuffix: String {
        root.map { " --root \($0)" } ?? ""
    }

    /// An inspector over the root.
    var inspector: Inspector { Inspector(root: storeRoot) }
}

/// `--json`, for commands whose output scripts read.
struct JSONOption: ParsableArguments {
    @Flag(help: "Print JSON for scripts instead of text.")
    var json = false
}

/// An update policy on the command line: a preset name or a number of seconds.
struct PolicyArgument: ExpressibleByArgument {
    let policy: UpdatePolicy

    init?(argument: String) {
        switch argument.lowercased() {
        case "lowest": policy = .lowest
        case "low": policy = .low
        case "middle": policy = .middle
        case "high": policy = .high
        case "highest": policy = .highest
        case "never": policy = .never
        default:
            guard let seconds = TimeInterval(argument), seconds.isFinite, seconds > 0 else { return nil }
            policy = .custom(seconds)
        }
    }

    init(_ policy: UpdatePolicy) {
        self.policy = policy
    }

    /// The help text every `--policy` option shares.
    static let help =
        "lowest (7 days), low (24 h), middle (1 h), high (1 min), highest (10 s), never, "
        + "or a number of seconds"
}

extension PolicyArgument {
    var defaultValueDescription: String { policy.description }
}
