import Foundation

/// Runs the `ModelStoreTestHelper` executable, which SwiftPM builds next to the test bundle.
final class HelperProcess: @unchecked Sendable {
    // @unchecked: used from one test at a time.
    let process = Process()
    private let input = Pipe()
    private let output = Pipe()

    static var executableURL: URL {
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
            let url = directory.appendingPathComponent("ModelStoreTestHelper")
            if fileManager.isExecutableFile(atPath: url.path) { return url }
        }
        fatalError("ModelStoreTestHelper not found near \(candidates)")
    }

    init(_ arguments: [String]) throws {
        process.executableURL = Self.executableURL
        process.arguments = arguments
        process.standardInput = input
        process.standardOutput = output
        try process.run()
    }

    /// Reads one line of the helper's output (blocking).
    func readLine() -> String? {
        var line = Data()
        while true {
            let byte = output.fileHandleForReading.readData(ofLength: 1)
            if byte.isEmpty { return line.isEmpty ? nil : String(decoding: line, as: UTF8.self) }
            if byte == Data("\n".utf8) { return String(decoding: line, as: UTF8.self) }
            line.append(byte)
        }
    }

    /// Closes the helper's standard input, which tells a holding helper to exit, and waits.
    func finish() {
        closeInput()
        process.waitUntilExit()
    }

    /// Closes the helper's standard input without waiting (to release many helpers at once).
    func closeInput() {
        try? input.fileHandleForWriting.close()
    }

    /// Runs the helper to completion and returns its output.
    static func run(_ arguments: [String]) throws -> String {
        let helper = try HelperProcess(arguments)
        helper.finish()
        let data = helper.output.fileHandleForReading.readDataToEndOfFile()
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
