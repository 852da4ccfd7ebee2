public import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A program the tests run as a second process: the test helper, the `modelstore` tool, the
/// import job, a shell. The one way every test target spawns one.
///
/// Started with ``init(_:_:environment:)``, it runs beside the test: its standard input is a
/// pipe that ``closeInput()`` closes (a helper that holds a database waits for that), its
/// standard output is read line by line with ``readLine()``, ``kill()`` sends SIGKILL, and
/// ``finish()`` collects the rest. ``run(_:_:environment:standardInput:)`` runs one to
/// completion instead and keeps standard output and standard error apart.
public final class ChildProcess: @unchecked Sendable {
    // @unchecked: one test drives a process at a time; `buffered` is only touched by it.
    public let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private var buffered = Data()

    /// Starts `executable`; `environment` adds variables (for example
    /// `MODELSTORE_TEST_CRASH_AT`) to this process's. Standard error goes where the test's goes.
    public init(_ executable: URL, _ arguments: [String], environment: [String: String] = [:]) throws {
        process.executableURL = executable
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        process.standardInput = input
        process.standardOutput = output
        try process.run()
    }

    /// Reads one line of output (blocking); nil at the end of the output.
    public func readLine() -> String? {
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

    /// Closes the process's standard input without waiting (to release many helpers at once).
    public func closeInput() {
        try? input.fileHandleForWriting.close()
    }

    /// Sends SIGKILL: the process gets no chance to close anything.
    public func kill() {
        #if canImport(Glibc)
        _ = Glibc.kill(process.processIdentifier, SIGKILL)
        #elseif canImport(Darwin)
        _ = Darwin.kill(process.processIdentifier, SIGKILL)
        #endif
    }

    /// Closes standard input (which tells a holding helper to exit), waits for the process to
    /// exit, and returns the complete lines it printed after those already read. A line cut
    /// short by a kill is dropped.
    @discardableResult
    public func finish() -> [String] {
        closeInput()
        let rest = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        buffered.append(rest)
        var lines = String(decoding: buffered, as: UTF8.self).components(separatedBy: "\n")
        lines.removeLast()  // after the last newline: empty, or a partial line
        buffered.removeAll()
        return lines
    }

    /// Runs `executable` to completion, with `environment` added to this process's and standard
    /// input from `standardInput` (nil: nothing to read). Output goes to temporary files rather
    /// than pipes, so a large output can never fill a pipe and stall the child.
    public static func run(
        _ executable: URL, _ arguments: [String], environment: [String: String] = [:],
        standardInput: FileHandle? = nil
    ) throws -> Output {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("child-\(UUID().uuidString)")
        let stdoutURL = scratch.appendingPathExtension("out")
        let stderrURL = scratch.appendingPathExtension("err")
        _ = FileManager.default.createFile(atPath: stdoutURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: stderrURL.path, contents: nil)
        defer {
            try? FileManager.default.removeItem(at: stdoutURL)
            try? FileManager.default.removeItem(at: stderrURL)
        }
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        process.standardInput = standardInput ?? FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: stdoutURL)
        process.standardError = try FileHandle(forWritingTo: stderrURL)
        try process.run()
        process.waitUntilExit()
        return Output(
            status: process.terminationStatus,
            stdout: String(decoding: try Data(contentsOf: stdoutURL), as: UTF8.self),
            stderr: String(decoding: try Data(contentsOf: stderrURL), as: UTF8.self))
    }
}
