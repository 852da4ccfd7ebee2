import ArgumentParser
import Foundation
@_spi(Inspection) import ModelStore

/// `--root`, shared by every command.
///
/// It has no default: ModelStore's default directory is per program
/// (`<caches>/ModelStore/<program>`, the program's `ModelStore.defaultDirectory`), and the
/// tool's own would be none of them. Without `--root` the tool says where the programs' folders
/// are and which exist, so the right one is one copy and paste away.
struct RootOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "The directory that holds the databases (required). A program's default is "
                + "\(Self.programsFolder.path)/<program>, its ModelStore.defaultDirectory.",
            valueName: "path"))
    var root: String?

    @Option(
        name: .customLong("key-file"),
        help: ArgumentHelp(
            "A file holding the key of an encrypted database (32 bytes, 64 hexadecimal digits, or base64). "
                + "Without it, an encrypted database's records are shown as encrypted, never their contents.",
            valueName: "path"))
    var keyFile: String?

    /// `<caches>/ModelStore`, which holds each program's default directory.
    static var programsFolder: URL { ModelStore.defaultDirectory.deletingLastPathComponent() }

    func validate() throws {
        do {
            _ = try KeyFile.encryption(path: keyFile)
        } catch {
            throw ValidationError("\(error)")
        }
        guard root == nil else { return }
        let folder = Self.programsFolder.path
        let entries = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
        // Only folders that hold a database: a program whose databases are all deleted (the
        // quick-start demo's, say) can leave its folder behind, and there is nothing to list in it.
        let programs = entries.filter { entry in
            var isDirectory: ObjCBool = false
            let path = folder + "/" + entry
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue,
                !FileManager.default.fileExists(atPath: path + "/" + StoreRoot.markerName)
            else { return false }
            return !((try? StoreRoot(url: URL(fileURLWithPath: path, isDirectory: true)).databaseNames()) ?? []).isEmpty
        }
        var message = "--root is required. Each program keeps its databases in its own folder, "
            + "\(folder)/<program> by default."
        if let first = programs.first {
            message += " Programs with databases there: \(programs.joined(separator: ", ")). "
                + "For example: `\(ToolCommand.list(root: folder + "/" + first))`"
        } else {
            message += " No program has databases there yet."
        }
        if entries.contains(where: { StoreRoot(url: Self.programsFolder).isDatabase($0) }) {
            let command = ToolCommand.list(root: folder)
            message += " \(folder) itself holds databases of an earlier ModelStore version: `\(command)`"
        }
        throw ValidationError(message)
    }

    /// The root to work in (``validate()`` made sure one was given).
    var storeRoot: StoreRoot {
        StoreRoot(url: URL(fileURLWithPath: root ?? Self.programsFolder.path, isDirectory: true))
    }

    /// An inspector over the root.
    var inspector: Inspector {
        // `validate()` has read the key file once already: a failure here is a file changed since.
        Inspector(root: storeRoot, encryption: (try? KeyFile.encryption(path: keyFile)) ?? .none)
    }
}

/// `--json`, for commands whose output scripts read.
struct JSONOption: ParsableArguments {
    @Flag(help: "Print JSON for scripts instead of text.")
    var json = false
}

/// An update policy on the command line: a preset name or a number of seconds.
///
/// Options read it with `parsing: .unconditional` and ``parse(_:)``: without that,
/// ArgumentParser takes `-5` for an option and says only "Missing value for '--policy'".
struct PolicyArgument: Sendable, CustomStringConvertible {
    let policy: UpdatePolicy

    init(_ policy: UpdatePolicy) {
        self.policy = policy
    }

    /// Reads a preset name or a positive number of seconds.
    ///
    /// - Throws: ``Invalid``, whose description ArgumentParser appends to its usage error.
    @Sendable static func parse(_ argument: String) throws -> PolicyArgument {
        switch argument.lowercased() {
        case "lowest": return PolicyArgument(.lowest)
        case "low": return PolicyArgument(.low)
        case "middle": return PolicyArgument(.middle)
        case "high": return PolicyArgument(.high)
        case "highest": return PolicyArgument(.highest)
        case "never": return PolicyArgument(.never)
        default:
            // Double's parser reads "nan", "inf" and out-of-range numbers ("1e400" is infinity):
            // ModelStore's lifetime rule refuses them all.
            guard let seconds = TimeInterval(argument) else { throw Invalid(reason: "it is not a policy name") }
            guard TimeBounds.isValidLifetime(seconds) else {
                throw Invalid(reason: "a number of seconds must be positive and finite")
            }
            return PolicyArgument(.custom(seconds))
        }
    }

    /// Why a `--policy` value was refused, with the values that are accepted.
    struct Invalid: Error, CustomStringConvertible {
        let reason: String
        var description: String { "\(reason). Use \(PolicyArgument.help)." }
    }

    /// The help text every `--policy` option shares.
    static let help =
        "lowest (7 days), low (24 h), middle (1 h), high (1 min), highest (10 s), never, "
        + "or a positive number of seconds"

    /// How the default appears in `--help`.
    var description: String { policy.description }
}
