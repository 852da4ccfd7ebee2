import ArgumentParser
import Foundation

/// Runs `modelstore-import` with the exit codes `modelstore` documents: 0 success, 1 failure,
/// 2 usage error.
///
/// ArgumentParser's own `main()` exits with 64 (`EX_USAGE`) for command-line mistakes, so
/// parsing and errors are handled here, as `modelstore`'s entry point does.
@main
enum EntryPoint {
    static func main() async {
        let command: ImportCommand
        do {
            command = try ImportCommand.parse(Array(CommandLine.arguments.dropFirst()))
        } catch {
            exit(parsingFailed: error)
        }
        do {
            try await command.run()
        } catch let failure as ImportFailure {
            FileHandle.standardError.write(Data("error: \(failure)\n".utf8))
            Foundation.exit(1)
        } catch {
            exit(parsingFailed: error)
        }
        Foundation.exit(0)
    }

    /// Prints ArgumentParser's message: help goes to stdout with status 0, command-line
    /// mistakes to stderr with 2, other errors to stderr with 1.
    private static func exit(parsingFailed error: any Error) -> Never {
        let code = ImportCommand.exitCode(for: error)
        let message = ImportCommand.fullMessage(for: error)
        if code == .success {
            if !message.isEmpty { print(message) }
            Foundation.exit(0)
        }
        if !message.isEmpty { FileHandle.standardError.write(Data((message + "\n").utf8)) }
        Foundation.exit(code == .validationFailure ? 2 : 1)
    }
}
