import ArgumentParser
import Foundation
@testable import ModelStoreCLI
import ModelStoreTestSupport

/// Checks that a message of the tool advises only what the tool has: every backticked
/// `modelstore …` command parses as the tool parses its own command line, every backticked
/// `--option` is an option of the command (or of some command), and no API call is advised.
struct AdviceCheck {
    /// Each subcommand's long option and flag names, read from the tool's own
    /// `--experimental-dump-help`, so the check follows the tool as it is built.
    let options: [String: Set<String>]

    /// Words only API advice holds: call syntax, parameter labels, API types.
    static let apiWords = [
        "(_:", ":)", "replacingExisting", "defineIndex", "ModelStore.", "Configuration", "rekey(", "next()",
        "removeObject(", "in this process",
    ]

    init() throws {
        let dump = try ToolProcess.modelstore(["--experimental-dump-help"])
        let json = try JSONSerialization.jsonObject(with: Data(dump.stdout.utf8)) as? [String: Any]
        let command = json?["command"] as? [String: Any]
        var options: [String: Set<String>] = [:]
        for subcommand in command?["subcommands"] as? [[String: Any]] ?? [] {
            guard let name = subcommand["commandName"] as? String else { continue }
            let arguments = subcommand["arguments"] as? [[String: Any]] ?? []
            options[name] = Set(
                arguments.flatMap { argument in
                    (argument["names"] as? [[String: Any]] ?? []).filter { $0["kind"] as? String == "long" }
                        .compactMap { $0["name"] as? String }
                })
        }
        self.options = options
    }

    /// What is wrong with `message` (empty: nothing), for a failure of `subcommand` (nil: any).
    func problems(in message: String, subcommand: String? = nil) -> [String] {
        var problems = Self.apiWords.filter { message.contains($0) }.map { "API advice \($0.debugDescription)" }
        for quoted in AdviceRunner.backticked(in: message) {
            if quoted.hasPrefix("modelstore ") {
                problems += commandProblems(quoted)
            } else if quoted.hasPrefix("--") {
                let name = String(quoted.dropFirst(2).prefix { $0 != " " && $0 != "=" })
                let known = subcommand.flatMap { options[$0] } ?? Set(options.values.joined())
                if !known.contains(name) { problems.append("no option --\(name) in \(subcommand ?? "any command")") }
            } else if let word = quoted.split(separator: " ").first, options[String(word)] == nil {
                problems.append("`\(quoted)` is neither a command nor an option of the tool")
            }
        }
        return problems
    }

    /// What is wrong with `command`, a whole command line as a message quotes it: it must parse as
    /// the tool parses its arguments, once the shell has split it.
    func commandProblems(_ command: String) -> [String] {
        guard let words = try? Self.shellWords(command), words.count >= 2, words[0] == "modelstore" else {
            return ["`\(command)` is not a command line a shell can split"]
        }
        guard options[words[1]] != nil else { return ["`\(command)`: no command \(words[1])"] }
        do {
            _ = try ModelStoreCommand.parseAsRoot(Array(words.dropFirst()))
            return []
        } catch {
            return ["`\(command)` does not parse: \(ModelStoreCommand.message(for: error))"]
        }
    }

    /// The words bash splits `command` into.
    static func shellWords(_ command: String) throws -> [String] {
        let run = try ChildProcess.run(URL(fileURLWithPath: "/bin/bash"), ["-c", "printf '%s\\0' " + command])
        guard run.status == 0 else { throw AdviceRunner.NoAdvice(subcommand: "", text: command) }
        return run.stdout.split(separator: "\0", omittingEmptySubsequences: false).dropLast().map(String.init)
    }
}
