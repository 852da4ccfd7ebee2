import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What the tool's standard streams are connected to, and writing to standard error.
enum Terminal {
    /// Whether standard output is a terminal (rather than a pipe or a file).
    static var stdoutIsTerminal: Bool { isatty(STDOUT_FILENO) == 1 }

    /// Whether standard input is a terminal, so a person can be asked a question.
    static var stdinIsTerminal: Bool { isatty(STDIN_FILENO) == 1 }

    /// Whether standard error is a terminal.
    static var stderrIsTerminal: Bool { isatty(STDERR_FILENO) == 1 }

    /// Whether to draw progress for a command whose results go to standard output.
    ///
    /// Progress is drawn on standard error, so it never mixes with data a script reads from
    /// standard output, and only when a person is watching: both streams are terminals.
    static var showsProgress: Bool { stdoutIsTerminal && stderrIsTerminal }

    /// Writes `text` and a newline to standard error.
    static func printError(_ text: String) {
        writeError(text + "\n")
    }

    /// Writes `text` to standard error as it is.
    static func writeError(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}
