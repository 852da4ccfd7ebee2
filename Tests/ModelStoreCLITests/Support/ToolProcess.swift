import Foundation

/// What a run of one of the package's executables printed and how it exited.
struct ToolResult {
    let status: Int32
    let stdout: String
    let stderr: String

    /// Standard output's lines, without the empty one after the last newline.
    var lines: [String] {
        stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).filter { !$0.isEmpty }
    }

    /// Standard output parsed as JSON.
    func json() throws -> Any {
        try JSONSerialization.jsonObject(with: Data(stdout.utf8), options: [.fragmentsAllowed])
    }

    /// Standard output decoded as `type`.
    func decode<Value: Decodable>(_ type: Value.Type) throws -> Value {
        try JSONDecoder().decode(type, from: Data(stdout.utf8))
    }
}

/// Runs the `modelstore` and `modelstore-import` executables that SwiftPM builds next to
/// the test bundle (the test target depends on their targets so they are built).
enum ToolProcess {
    /// Runs `modelstore` with `arguments`.
    static func modelstore(_ arguments: [String]) throws -> ToolResult {
        try run("modelstore", arguments)
    }

    /// Runs `modelstore-import` with `arguments`.
    static func importJob(_ arguments: [String]) throws -> ToolResult {
        try run("modelstore-import", arguments)
    }

    /// Runs the executable `name` to completion. Output goes to temporary files rather than
    /// pipes, so a large output can never fill a pipe and stall the child.
    static func run(_ name: String, _ arguments: [String]) throws -> ToolResult {
        try run(try executable(name), arguments, environment: nil)
    }

    /// Runs `executable` to completion, with `environment` (nil: this process's) and standard
    /// input from `standardInput` (nil: nothing to read).
    static func run(
        _ executable: URL, _ arguments: [String], environment: [String: String]?,
        standardInput: FileHandle? = nil
    ) throws -> ToolResult {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("cli-\(UUID().uuidString)")
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
        if let environment { process.environment = environment }
        process.standardInput = standardInput ?? FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: stdoutURL)
        process.standardError = try FileHandle(forWritingTo: stderrURL)
        try process.run()
        process.waitUntilExit()
        return ToolResult(
            status: process.terminationStatus,
            stdout: String(decoding: try Data(contentsOf: stdoutURL), as: UTF8.self),
            stderr: String(decoding: try Data(contentsOf: stderrURL), as: UTF8.self))
    }

    /// Finds the executable `name` in the build directory that holds the running tests.
    static func executable(_ name: String) throws -> URL {
        let fileManager = FileManager.default
        var candidates: [URL] = []
        #if os(Linux)
        if let exe = try? fileManager.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            candidates.append(URL(fileURLWithPath: exe).deletingLastPathComponent())
        }
        #endif
        candidates.append(Bundle.main.bundleURL)
        candidates.append(Bundle.main.bundleURL.deletingLastPathComponent())
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            candidates.append(bundle.bundleURL.deletingLastPathComponent())
        }
        for directory in candidates {
            let url = directory.appendingPathComponent(name)
            if fileManager.isExecutableFile(atPath: url.path) { return url }
        }
        throw ToolNotFound(name: name, searched: candidates.map(\.path))
    }
}

/// The executable under test was not built next to the tests.
struct ToolNotFound: Error, CustomStringConvertible {
    let name: String
    let searched: [String]

    var description: String {
        "\(name) not found in \(searched); run `swift build --build-tests` first"
    }
}
