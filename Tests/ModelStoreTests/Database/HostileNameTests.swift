import Foundation
import Testing
@testable import ModelStore
import ModelStoreTestSupport

/// No accepted name resolves outside the root, nothing is created, renamed or deleted for
/// a rejected name, and links are never followed.
@Suite("Hostile names and paths")
struct HostileNameTests {
    /// Pieces that names are built from: path syntax, separators and look-alikes, control
    /// and format characters, Unicode normalisation traps, and ordinary text.
    static let pieces: [String] = [
        "a", "Z", "0", "db", "-", "_", " ", ".", "..", "/", "\\", "\0", "\n", "\r", "\t", "\u{7F}", "\u{85}",
        "\u{202E}", "\u{FEFF}", "\u{200B}", "é", "e\u{301}", "🙂", "\u{2215}", "\u{FF0F}", "\u{2024}", "~", "$HOME",
        "%2e%2e", "%2f", ":", "*", "?", "CON", "LOCK", "CURRENT", ".modelstore", ".modelstore-trash-", "😀\u{FE0F}",
    ]

    static func randomName(_ random: inout SeededGenerator) -> String {
        switch Int.random(in: 0..<20, using: &random) {
        case 0: return String(repeating: "x", count: Int.random(in: 195...205, using: &random))
        case 1: return String(repeating: "é", count: Int.random(in: 98...102, using: &random))
        default:
            let count = Int.random(in: 1...8, using: &random)
            return (0..<count).map { _ in pieces.randomElement(using: &random)! }.joined()
        }
    }

    @Test("400 random names: each accepted one is a direct child of the root, each rejected one creates nothing", .long)
    func randomNames() throws {
        // The root sits inside a private parent, so escapes into the parent would be seen.
        let fixture = Fixture()
        let parent = fixture.directory.url.resolvingSymlinksInPath().path
        let root = parent + "/root"
        let rootURL = URL(fileURLWithPath: root, isDirectory: true)
        var configuration = fixture.quietConfiguration
        configuration.directory = rootURL
        func open(_ name: String) throws -> ModelStore {
            try ModelStore(name: name, policy: .never, configuration: configuration)
        }
        func entries() -> Set<String> { Set(DatabaseFiles.names(in: root)) }
        // Things that must survive whatever happens.
        try FileManager.default.createDirectory(atPath: root + "/photos", withIntermediateDirectories: true)
        try Data("outside".utf8).write(to: URL(fileURLWithPath: parent + "/beside-root.txt"))
        try Data("mine".utf8).write(to: URL(fileURLWithPath: root + "/photos/CURRENT"))
        try Data("notes".utf8).write(to: URL(fileURLWithPath: root + "/notes.txt"))
        try open("keep").set(1, forKey: "k")
        let rootBefore = entries()
        let parentBefore = Set(try FileManager.default.contentsOfDirectory(atPath: parent))

        var random = SeededGenerator(seed: 2024)
        var accepted = 0
        var rejected = 0
        for _ in 0..<400 {
            let name = Self.randomName(&random)
            guard name != "keep", name != "photos", name != "notes.txt" else { continue }
            let store: ModelStore
            do {
                store = try open(name)
            } catch ModelStoreError.invalidName {
                rejected += 1
                #expect(entries() == rootBefore, "rejected \(name.debugDescription) created something")
                #expect(errorCase { try ModelStore.deleteDatabase(named: name, in: rootURL) } == "invalidName")
                #expect(errorCase { _ = try ModelStore.repair(named: name, in: rootURL) } == "invalidName")
                continue
            }
            accepted += 1
            // The safety property, checked without trusting the validator.
            #expect(!name.utf8.contains(UInt8(ascii: "/")) && !name.utf8.contains(0) && name != "." && name != "..")
            #expect(store.url.path == root + "/" + name)
            #expect(entries() == rootBefore.union([name]), "\(name.debugDescription)")
            let resolved = try #require(realpath(store.url.path, nil))
            #expect(URL(fileURLWithPath: String(cString: resolved)).deletingLastPathComponent().path == root)
            free(resolved)
            try store.set(name, forKey: "name")
            #expect(try store.object(String.self, forKey: "name") == name)
            try store.deleteFromDisk()
            #expect(entries() == rootBefore)
        }
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: parent)) == parentBefore)
        #expect(try open("keep").object(Int.self, forKey: "k") == 1)
        #expect(accepted > 100 && rejected > 100, "accepted \(accepted), rejected \(rejected)")
    }

    @Test("A folder whose marker is a symbolic link is not ours: open, repair and delete refuse it")
    func linkedMarker() throws {
        let fixture = Fixture()
        let folder = fixture.directory.path + "/db"
        let outside = TemporaryDirectory()
        try Data(StoreDirectory.markerContents).write(to: outside.url.appendingPathComponent("marker"))
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            atPath: folder + "/.modelstore", withDestinationPath: outside.path + "/marker")
        #expect(errorCase { _ = try fixture.openQuietly("db") } == "notAModelStore")
        #expect(errorCase { _ = try ModelStore.repair(named: "db", in: fixture.directory.url) } == "notAModelStore")
        #expect(errorCase { try ModelStore.deleteDatabase(named: "db", in: fixture.directory.url) } == "notAModelStore")
        try ModelStore.deleteAllDatabases(in: fixture.directory.url)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == [".modelstore"])
        #expect(FileManager.default.fileExists(atPath: outside.path + "/marker"))
    }

    @Test(".reset removes a link named like a LevelDB file as a link; its target outside survives")
    func resetDoesNotFollowLinks() throws {
        let fixture = Fixture()
        let sample = try SampleDatabase(fixture, count: 50, placement: .log)
        let outside = TemporaryDirectory()
        try Data("precious".utf8).write(to: outside.url.appendingPathComponent("000099.ldb"))
        try FileManager.default.createSymbolicLink(
            atPath: sample.url.path + "/000099.ldb", withDestinationPath: outside.path + "/000099.ldb")
        try FileManager.default.createSymbolicLink(atPath: sample.url.path + "/lost", withDestinationPath: outside.path)
        try FileManager.default.removeItem(atPath: sample.url.path + "/CURRENT")  // damage: reset applies
        var configuration = fixture.quietConfiguration
        configuration.corruptionPolicy = .reset
        try ModelStore(name: "db", policy: .never, configuration: configuration).close()
        #expect(!FileManager.default.fileExists(atPath: sample.url.path + "/000099.ldb"))
        #expect(try String(contentsOfFile: outside.path + "/000099.ldb", encoding: .utf8) == "precious")
    }
}
