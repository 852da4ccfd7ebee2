import Foundation
import Testing

/// What a user sees who adds a driver product without its package trait: this package's own
/// build has the traits off, so its driver modules are the trait-less ones, and a user's file is
/// type-checked against them here (with the `swiftc` on PATH; about a second).
@Suite("Driver modules without their trait")
struct TraitMessageTests {
    @Test(
        "A driver used without its trait is unavailable with a message that names the trait",
        arguments: [
            ("ModelStoreHummingbird", "ModelStorePersistDriver", "Hummingbird",
             "let persist = try ModelStorePersistDriver(name: \"sessions\")"),
            ("ModelStoreHummingbird", "ModelStorePersistDriver", "Hummingbird",
             "func sessions(_ persist: ModelStorePersistDriver) {}"),
            ("ModelStoreVapor", "ModelStoreCache", "Vapor", "let cache = ModelStoreCache(store: 0, on: 0)"),
            ("ModelStoreVapor", "ModelStoreCache", "Vapor", "let cache: ModelStoreCache? = nil"),
        ])
    func driverWithoutItsTraitSaysHowToTurnItOn(module: String, type: String, trait: String, use: String) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("TraitMessage-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = folder.appendingPathComponent("main.swift")
        try Data("import \(module)\n\(use)\n".utf8).write(to: source)

        let result = try Self.run(
            Self.swiftc(), ["-typecheck", source.path, "-I", try Self.modulesFolder(containing: module).path])
        #expect(result.status != 0)
        // "'ModelStorePersistDriver' is unavailable: …", or "'init(name:configuration:sweepInterval:)'
        // is unavailable: …" for a call.
        #expect(
            result.errors.contains("is unavailable: \(type) is built only with ModelStore's \"\(trait)\" package trait"),
            "\(result.errors)")
        #expect(result.errors.contains("traits: [\"\(trait)\"])"), "\(result.errors)")
        #expect(!result.errors.contains("cannot find"), "\(result.errors)")
    }

    /// `.build/<triple>/debug/Modules`, next to the test bundle, where SwiftPM puts the modules
    /// it built.
    static func modulesFolder(containing module: String) throws -> URL {
        var candidates: [URL] = []
        #if os(Linux)
        if let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            candidates.append(URL(fileURLWithPath: exe).deletingLastPathComponent())
        }
        #endif
        candidates.append(Bundle.main.bundleURL.deletingLastPathComponent())
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            candidates.append(bundle.bundleURL.deletingLastPathComponent())
        }
        for directory in candidates {
            let modules = directory.appendingPathComponent("Modules")
            if FileManager.default.fileExists(atPath: modules.appendingPathComponent("\(module).swiftmodule").path) {
                return modules
            }
        }
        throw CocoaError(.fileNoSuchFile, userInfo: [NSLocalizedDescriptionKey: "no Modules folder near \(candidates)"])
    }

    /// The first `swiftc` on PATH.
    static func swiftc() throws -> URL {
        for folder in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
            let candidate = URL(fileURLWithPath: String(folder)).appendingPathComponent("swiftc")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        throw CocoaError(.fileNoSuchFile, userInfo: [NSLocalizedDescriptionKey: "no swiftc on PATH"])
    }

    /// Runs `executable` to completion; its diagnostics go to a file, so they never fill a pipe.
    static func run(_ executable: URL, _ arguments: [String]) throws -> (status: Int32, errors: String) {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("trait-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: log) }
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let output = try FileHandle(forWritingTo: log)
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output
        process.standardError = output
        try process.run()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: try Data(contentsOf: log), as: UTF8.self))
    }
}
