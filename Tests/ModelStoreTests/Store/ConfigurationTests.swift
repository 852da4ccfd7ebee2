import Foundation
import Logging
import Testing
@testable import ModelStore
import ModelStoreTestSupport

/// A configuration is checked whole before anything touches the disk, its messages name valid
/// values, and settings that a later open cannot change are reported.
@Suite("Configuration")
struct ConfigurationTests {
    /// Configurations that must be refused, and the setting each message must name.
    static let invalid: [(String, @Sendable (inout ModelStore.Configuration) -> Void)] = [
        ("automaticSweepInterval", { $0.automaticSweepInterval = 0 }),
        ("automaticSweepInterval", { $0.automaticSweepInterval = -.infinity }),
        ("automaticSweepInterval", { $0.automaticSweepInterval = .nan }),
        ("maximumRecordCount", { $0.maximumRecordCount = -1 }),
        ("maximumTotalBytes", { $0.maximumTotalBytes = -1 }),
        ("objectCacheLimit", { $0.objectCacheLimit = -1 }),
    ]

    @Test("An invalid setting is refused before the root or the database folder is created", arguments: 0..<6)
    func invalidSettingCreatesNothing(index: Int) throws {
        let fixture = Fixture()
        let (setting, change) = Self.invalid[index]
        var configuration = fixture.quietConfiguration
        configuration.directory = fixture.directory.url.appendingPathComponent("root", isDirectory: true)
        change(&configuration)
        do {
            _ = try ModelStore(name: "db", policy: .low, configuration: configuration)
            Issue.record("expected invalidPolicy for \(setting)")
        } catch let error as ModelStoreError {
            guard case .invalidPolicy = error else { Issue.record("\(error)"); return }
            #expect(error.description.contains(setting), "\(error)")
            #expect(!error.description.contains(".never"), "\(error)")
        }
        #expect(fixture.directory.entries().isEmpty)
    }

    @Test("The sweep interval's message names nil as the way to turn sweeps off")
    func sweepIntervalMessageNamesNil() throws {
        let fixture = Fixture()
        var configuration = fixture.quietConfiguration
        configuration.automaticSweepInterval = 0
        do {
            _ = try ModelStore(name: "db", policy: .low, configuration: configuration)
            Issue.record("expected invalidPolicy")
        } catch let error as ModelStoreError {
            #expect(error.description.contains("nil"), "\(error)")
            #expect(!error.description.contains(".never"), "\(error)")
        }
    }

    @Test("A zero record lifetime is refused with a message that does not offer .never")
    func lifetimeMessageNamesValidValues() throws {
        let store = try Fixture().open("db")
        do {
            try store.set(1, forKey: "k", expiresAfter: 0)
            Issue.record("expected invalidPolicy")
        } catch let error as ModelStoreError {
            #expect(!error.description.contains(".never"), "\(error)")
            #expect(error.description.contains("positive, finite number of seconds"), "\(error)")
        }
    }

    @Test("Every invalidName message names what a valid name is")
    func invalidNameMessagesNameValidValues() throws {
        for name in ["", "..", "a/b", ".modelstore-trash-1", String(repeating: "x", count: 201)] {
            do {
                try DatabaseName.validate(name)
                Issue.record("expected invalidName for \(name)")
            } catch {
                #expect(error.description.contains("1 to 200 UTF-8 bytes"), "\(error)")
            }
        }
    }

    @Test("The invalidKey message names the valid lengths")
    func invalidKeyMessageNamesValidValues() throws {
        let store = try Fixture().open("db")
        #expect(throws: ModelStoreError.self) { try store.set(1, forKey: "") }
        do {
            try store.set(1, forKey: "")
        } catch let error as ModelStoreError {
            #expect(error.description.contains("1 to 65536 UTF-8 bytes"), "\(error)")
        }
    }

    @Test("A later open asking for another objectCacheLimit logs a warning naming both values")
    func objectCacheLimitOfLaterOpenIsLogged() throws {
        let fixture = Fixture()
        let logs = LogCapture()
        var configuration = fixture.configuration(logs: logs)
        configuration.objectCacheLimit = 0
        let first = try ModelStore(name: "db", policy: .never, configuration: configuration)
        configuration.objectCacheLimit = 100
        let second = try ModelStore(name: "db", policy: .never, configuration: configuration)
        #expect(first.database === second.database)
        let warnings = logs.all.filter { $0.level == .warning && $0.message.contains("objectCacheLimit") }
        #expect(warnings.count == 1)
        #expect(warnings.first.map { $0.message.contains("0") && $0.message.contains("100") } == true)
    }

    @Test("A later open with the same settings logs no warning")
    func sameSettingsAreQuiet() throws {
        let fixture = Fixture()
        let logs = LogCapture()
        let configuration = fixture.configuration(logs: logs)
        _ = try ModelStore(name: "db", policy: .never, configuration: configuration)
        _ = try ModelStore(name: "db", policy: .low, configuration: configuration)
        #expect(logs.all.filter { $0.level >= .warning }.isEmpty)
    }
}

@Suite("Default directory and platforms")
struct DefaultDirectoryTests {
    @Test("The default directory is per program: the caches directory, ModelStore, then the program's folder")
    func defaultDirectoryIsPerProgram() throws {
        let url = ModelStore.defaultDirectory
        #expect(url.deletingLastPathComponent().lastPathComponent == "ModelStore")
        let program = url.lastPathComponent
        #expect(!program.isEmpty)
        try DatabaseName.validate(program)
        #if os(Linux)
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).lastPathComponent
        #expect(program == ModelStore.programFolderName(executable))
        let home = ProcessInfo.processInfo.environment["XDG_CACHE_HOME"] ?? (NSHomeDirectory() + "/.cache")
        #expect(url.deletingLastPathComponent().deletingLastPathComponent().standardizedFileURL.path
            == URL(fileURLWithPath: home).standardizedFileURL.path)
        #endif
    }

    @Test(
        "Program names become valid, non-empty folder names",
        arguments: [
            "", ".", "..", "a/b", "my app", "tab\tname", ".modelstore-trash-x", String(repeating: "p", count: 300),
        ])
    func programFolderNamesAreValid(program: String) throws {
        let folder = ModelStore.programFolderName(program)
        #expect(!folder.isEmpty)
        try DatabaseName.validate(folder)
    }

    @Test("Package.swift declares only the platforms that link the system LevelDB")
    func manifestDeclaresOnlyBuildablePlatforms() throws {
        let root = PackageRoot.url
        let manifest = try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
        for platform in [".iOS(", ".tvOS(", ".watchOS(", ".visionOS("] {
            #expect(!manifest.contains(platform), "\(platform)")
        }
        #expect(manifest.contains(".macOS("))
    }
}
