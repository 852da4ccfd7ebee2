import Foundation
import Testing

/// README.md's driver examples: the Package.swift manifests are valid (each names the packages
/// of the products it uses), and the compiled copies of the code examples
/// (DriverReadmeSnippets, which `make test-integrations` builds) are up to date.
@Suite struct DriverReadmeTests {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test func theReadmeHasAManifestForEachDriver() {
        #expect(Set(ReadmeManifests.all.map(\.driver)) == ["Hummingbird", "Vapor"])
    }

    /// `swift package dump-package` loads a manifest without resolving it, and refuses one that
    /// uses a product of a package it does not depend on ("unknown package 'hummingbird'").
    @Test(arguments: ReadmeManifests.all.map(\.line))
    func manifestLoads(line: Int) throws {
        let manifest = try #require(ReadmeManifests.all.first { $0.line == line })
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ReadmeManifest-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data(manifest.text.utf8).write(to: folder.appendingPathComponent("Package.swift"))
        let result = try Self.run(Self.swift(), ["package", "--package-path", folder.path, "dump-package"])
        #expect(result.status == 0, "README.md:\(line) (\(manifest.driver)): \(result.errors)")
    }

    @Test func compiledCopiesAreUpToDate() throws {
        let result = try Self.run(Self.root.appendingPathComponent("scripts/extract-driver-snippets"), ["--check"])
        #expect(result.status == 0, "\(result.errors)")
    }

    /// The `swift` that runs these tests: `SWIFT_EXEC`'s folder, else the first on PATH.
    static func swift() throws -> URL {
        var folders = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
        if let exec = ProcessInfo.processInfo.environment["SWIFT_EXEC"] {
            folders.insert(URL(fileURLWithPath: exec).deletingLastPathComponent().path, at: 0)
        }
        for folder in folders {
            let candidate = URL(fileURLWithPath: folder).appendingPathComponent("swift")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        throw CocoaError(.fileNoSuchFile, userInfo: [NSLocalizedDescriptionKey: "no swift on PATH"])
    }

    /// Runs `executable` to completion; its output goes to a file, so it never fills a pipe.
    static func run(_ executable: URL, _ arguments: [String]) throws -> (status: Int32, errors: String) {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("readme-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: log) }
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = try FileHandle(forWritingTo: log)
        try process.run()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: try Data(contentsOf: log), as: UTF8.self))
    }
}
