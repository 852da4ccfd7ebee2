import ArgumentParser
import Foundation
import ModelStore

/// Runs `modelstore` and turns every outcome into the documented exit codes.
///
/// ArgumentParser's own `main()` exits with 64 (`EX_USAGE`) for command-line mistakes; the
/// tool promises 2, like most Unix tools, so parsing and errors are handled here.
@main
enum EntryPoint {
    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        var command: any ParsableCommand
        do {
            command = try ModelStoreCommand.parseAsRoot(arguments)
        } catch {
            exit(parsingFailed: error)
        }
        do {
            try command.run()
            PrivateCopies.removeAll()  // the command's stores are released by now
        } catch let error as CommandFailure {
            exit(error)
        } catch let error as ModelStoreError {
            exit(CommandFailure(error))
        } catch {
            // ArgumentParser's own errors (help requests, validation failures) and anything
            // else, which ArgumentParser prints as "Error: ..." with status 1.
            exit(parsingFailed: error)
        }
        Foundation.exit(ExitStatus.success.rawValue)
    }

    private static func exit(_ failure: CommandFailure) -> Never {
        // Messages name the database, not the private copy a read-only command read.
        let message = PrivateCopies.unmask(failure.message)
        PrivateCopies.removeAll()
        Terminal.printError("error: " + message)
        Foundation.exit(failure.status.rawValue)
    }

    /// Prints ArgumentParser's message: help goes to stdout with status 0, command-line
    /// mistakes to stderr with 2, other errors to stderr with 1.
    private static func exit(parsingFailed error: any Error) -> Never {
        PrivateCopies.removeAll()
        let code = ModelStoreCommand.exitCode(for: error)
        let message = ModelStoreCommand.fullMessage(for: error)
        if code == .success {
            if !message.isEmpty { print(message) }
            Foundation.exit(ExitStatus.success.rawValue)
        }
        if !message.isEmpty { Terminal.printError(message) }
        Foundation.exit(code == .validationFailure ? ExitStatus.usage.rawValue : ExitStatus.failure.rawValue)
    }
}
