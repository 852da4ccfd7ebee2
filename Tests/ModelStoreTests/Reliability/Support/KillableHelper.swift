import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Runs the `ModelStoreTestHelper` executable for crash tests: start it, read its lines,
/// kill it with SIGKILL at a moment of the test's choosing, and collect what it printed.
final class KillableHelper {
    let process = Process()
    private let output = Pipe()
    private var buffered = Data()

    /// Starts the helper; `environment` adds variables (for example
    /// `MODELSTORE_TEST_CRASH_AT`) to this process's.
    init(_ arguments: [String], environment: [String: String] = [:]) throws {
        process.executableURL = HelperProcess.executableURL
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output
        try process.run()
    }

    /// Reads one line (blocking); nil at end of output.
    func readLine() -> String? {
        while true {
            if let newline = buffered.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffered[buffered.startIndex..<newline], as: UTF8.self)
                buffered.removeSubrange(buffered.startIndex...newline)
                return line
            }
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { return nil }
            buffered.append(chunk)
        }
    }

    /// Sends SIGKILL: the process gets no chance to close anything.
    func kill() {
        _ = Glibc.kill(process.processIdentifier, SIGKILL)
    }

    /// Waits for the process to exit and returns the complete lines it printed after those
    /// already read. A line cut short by the kill is dropped.
    func finish() -> [String] {
        let rest = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        buffered.append(rest)
        var lines = String(decoding: buffered, as: UTF8.self).components(separatedBy: "\n")
        lines.removeLast()  // after the last newline: empty, or a partial line
        buffered.removeAll()
        return lines
    }

    /// Runs the helper to completion and returns every line it printed.
    static func run(_ arguments: [String]) throws -> [String] {
        try KillableHelper(arguments).finish()
    }
}
