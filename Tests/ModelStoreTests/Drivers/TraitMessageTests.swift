import Foundation
import ModelStoreTestSupport
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

        let result = try ChildProcess.run(
            Self.swiftc(), ["-typecheck", source.path, "-I", try Self.modulesFolder(containing: module).path])
        #expect(result.status != 0)
        // "'ModelStorePersistDriver' is unavailable: …", or "'init(name:configuration:sweepInterval:)'
        // is unavailable: …" for a call.
        #expect(
            result.stderr.contains("is unavailable: \(type) is built only with ModelStore's \"\(trait)\" package trait"),
            "\(result.stderr)")
        #expect(result.stderr.contains("traits: [\"\(trait)\"])"), "\(result.stderr)")
        #expect(!result.stderr.contains("cannot find"), "\(result.stderr)")
    }

    /// `.build/<triple>/debug/Modules`, next to the test bundle, where SwiftPM puts the modules
    /// it built.
    static func modulesFolder(containing module: String) throws -> URL {
        let candidates = ChildProcess.buildFolders
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
}
