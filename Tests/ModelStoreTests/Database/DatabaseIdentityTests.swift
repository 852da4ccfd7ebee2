import Foundation
import Testing
@testable import ModelStore
import ModelStoreTestSupport

/// Which directory an open reaches, and which handle it shares: one handle per real database
/// directory, never one for two directories, and never a handle to a directory that is gone.
@Suite("Database identity: names, paths and removed directories")
struct DatabaseIdentityTests {
    static let composed = "caf\u{E9}"  // NFC
    static let decomposed = "cafe\u{301}"  // NFD: canonically equivalent, different bytes

    /// Whether this file system keeps the two spellings apart (Linux file systems do; APFS and
    /// HFS+ map them to one folder).
    static func keepsSpellingsApart(in directory: String) -> Bool {
        let probe = directory + "/probe-" + composed
        try? FileManager.default.createDirectory(atPath: probe, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: probe) }
        var info = stat()
        return lstat(directory + "/probe-" + decomposed, &info) != 0
    }

    @Test("Canonically equivalent but byte-different names are two databases where the file system keeps them apart")
    func equivalentNamesAreDistinctDatabases() throws {
        let fixture = Fixture()
        try #require(Self.keepsSpellingsApart(in: fixture.directory.path))
        let nfc = try fixture.open(Self.composed)
        try nfc.set(1, forKey: "k")
        let nfd = try fixture.open(Self.decomposed)
        #expect(nfc.database !== nfd.database)
        #expect(try nfd.object(Int.self, forKey: "k") == nil)
        try nfd.set(2, forKey: "k")
        #expect(try nfc.object(Int.self, forKey: "k") == 1)
        #expect(nfd.url.lastPathComponent.utf8.elementsEqual(Self.decomposed.utf8))
        try nfd.close()
        #expect(try fixture.open(Self.decomposed).object(Int.self, forKey: "k") == 2)
    }

    @Test("Deleting one spelling leaves the canonically equivalent database open and intact")
    func deletingOneSpellingKeepsTheOther() throws {
        let fixture = Fixture()
        try #require(Self.keepsSpellingsApart(in: fixture.directory.path))
        let nfc = try fixture.open(Self.composed)
        try nfc.set(1, forKey: "k")
        try fixture.open(Self.decomposed).set(2, forKey: "k")
        try ModelStore.deleteDatabase(named: Self.decomposed, in: fixture.directory.url)
        #expect(!nfc.isClosed)
        #expect(try nfc.object(Int.self, forKey: "k") == 1)
        #expect(fixture.directory.entries().map { Array($0.utf8) } == [Array(Self.composed.utf8)])
    }

    @Test("After the root is removed while a store is open, a new open gets a fresh database whose writes survive")
    func newOpenAfterRootRemovalIsFresh() throws {
        let fixture = Fixture()
        let root = fixture.directory.url.appendingPathComponent("root", isDirectory: true)
        var configuration = fixture.quietConfiguration
        configuration.directory = root
        let old = try ModelStore(name: "db", policy: .never, configuration: configuration)
        try old.set(1, forKey: "before")
        try FileManager.default.removeItem(at: root)  // a cache cleaner

        let fresh = try ModelStore(name: "db", policy: .never, configuration: configuration)
        #expect(fresh.database !== old.database)
        #expect(try fresh.object(Int.self, forKey: "before") == nil)
        try fresh.set(2, forKey: "after")
        try fresh.close()
        let reopened = try ModelStore(name: "db", policy: .never, configuration: configuration)
        #expect(try reopened.object(Int.self, forKey: "after") == 2)
    }

    @Test("After the root is removed while a store is open, its writes fail with directoryRemoved within a millisecond")
    func writesAfterRootRemovalFail() throws {
        let fixture = Fixture()
        let store = try fixture.openQuietly("db")
        try store.set(1, forKey: "before")
        try FileManager.default.removeItem(at: fixture.directory.url)
        let removed = ContinuousClock.now
        // Writes look at the directory at most once per millisecond (a documented window):
        // poll, bounded, for the first refusal.
        var refusal: String?
        while refusal == nil, ContinuousClock.now - removed < .seconds(2) {
            refusal = errorCase { try store.set(2, forKey: "after") }
        }
        #expect(refusal == "directoryRemoved")
        #expect(ContinuousClock.now - removed < .milliseconds(500))
        // From then on every write is refused at once.
        #expect(errorCase { try store.set(2, forKey: "after") } == "directoryRemoved")
        #expect(errorCase { try store.removeObject(forKey: "before") } == "directoryRemoved")
        #expect(errorCase { try store.write { try $0.set(3, forKey: "batch") } } == "directoryRemoved")
        #expect(errorCase { _ = try store.removeAllObjects() } == "directoryRemoved")
    }

    @Test("Instances of a database whose folder was removed get directoryRemoved once a new open replaced it")
    func oldInstancesAfterReplacement() throws {
        let fixture = Fixture()
        let old = try fixture.openQuietly("db")
        try old.set(1, forKey: "k")
        try FileManager.default.removeItem(atPath: old.url.path)
        _ = try fixture.openQuietly("db")
        #expect(errorCase { _ = try old.object(Int.self, forKey: "k") } == "directoryRemoved")
        #expect(errorCase { try old.set(2, forKey: "k") } == "directoryRemoved")
    }

    @Test("A database folder moved away while open keeps its data there; the name opens a fresh database")
    func movedFolderKeepsItsData() throws {
        let fixture = Fixture()
        let old = try fixture.openQuietly("db")
        try old.set(1, forKey: "k")
        let moved = fixture.directory.path + "/moved"
        try FileManager.default.moveItem(atPath: old.url.path, toPath: moved)
        let fresh = try fixture.openQuietly("db")
        #expect(try fresh.object(Int.self, forKey: "k") == nil)
        try fresh.close()
        #expect(try fixture.openQuietly("moved").object(Int.self, forKey: "k") == 1)
    }

    @Test("A root path with .. after a symbolic link resolves the way the file system does, before and after it exists")
    func dotDotThroughLinkResolvesPhysically() throws {
        let fixture = Fixture()
        let parent = fixture.directory.url.resolvingSymlinksInPath().path
        try FileManager.default.createDirectory(atPath: parent + "/target/inner", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            atPath: parent + "/link", withDestinationPath: parent + "/target/inner")
        var configuration = fixture.quietConfiguration
        configuration.directory = URL(fileURLWithPath: parent + "/link/../store", isDirectory: true)

        let first = try ModelStore(name: "db", policy: .never, configuration: configuration)
        #expect(first.url.path == parent + "/target/store/db")
        try first.set(1, forKey: "k")
        try first.close()
        let second = try ModelStore(name: "db", policy: .never, configuration: configuration)
        #expect(second.url.path == parent + "/target/store/db")
        #expect(try second.object(Int.self, forKey: "k") == 1)
        #expect(!FileManager.default.fileExists(atPath: parent + "/store"))
    }

    @Test("Delete and repair resolve a root path with .. after a symbolic link the same way an open does")
    func deleteResolvesLikeOpen() throws {
        let fixture = Fixture()
        let parent = fixture.directory.url.resolvingSymlinksInPath().path
        try FileManager.default.createDirectory(atPath: parent + "/target/inner", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            atPath: parent + "/link", withDestinationPath: parent + "/target/inner")
        let spelled = URL(fileURLWithPath: parent + "/link/../store", isDirectory: true)
        var configuration = fixture.quietConfiguration
        configuration.directory = spelled
        try ModelStore(name: "db", policy: .never, configuration: configuration).close()
        #expect(FileManager.default.fileExists(atPath: parent + "/target/store/db"))
        try ModelStore.deleteDatabase(named: "db", in: spelled)
        #expect(!FileManager.default.fileExists(atPath: parent + "/target/store/db"))
    }

    @Test("A root that is itself a database (an old shared default's database named like the program) is refused")
    func rootInsideADatabaseIsRefused() throws {
        let fixture = Fixture()
        let old = try fixture.open("myapp")
        try old.set("kept", forKey: "k")
        try old.close()
        let programRoot = fixture.directory.url.appendingPathComponent("myapp")
        var configuration = fixture.configuration
        configuration.directory = programRoot
        #expect(throws: ModelStoreError.rootIsADatabase(path: programRoot.path)) {
            try ModelStore(name: "users", policy: .never, configuration: configuration)
        }
        #expect(throws: ModelStoreError.rootIsADatabase(path: programRoot.path)) {
            try ModelStore.deleteAllDatabases(in: programRoot)
        }
        // Nothing was created inside the old database, which still reads as before.
        #expect(!FileManager.default.fileExists(atPath: programRoot.appendingPathComponent("users").path))
        #expect(try fixture.open("myapp").object(String.self, forKey: "k") == "kept")
    }
}
