import Foundation
import Testing
@testable import ModelStore
import ModelStoreTestSupport

@Suite("Named databases: sharing, closing and deleting")
struct NamedDatabaseTests {
    @Test("Opening one database twice shares one LevelDB handle and sees the same data")
    func doubleOpenShares() throws {
        let fixture = Fixture()
        let first = try fixture.open("db")
        let second = try fixture.open("db")
        #expect(first.database === second.database)
        try first.set(1, forKey: "k")
        #expect(try second.object(Int.self, forKey: "k") == 1)
    }

    @Test("A differently spelled path to the same database shares the handle too")
    func differentSpellingShares() throws {
        let fixture = Fixture()
        let first = try fixture.open("db")
        var configuration = fixture.configuration
        configuration.directory = URL(fileURLWithPath: fixture.directory.path + "/./sub/..", isDirectory: true)
        try FileManager.default.createDirectory(
            atPath: fixture.directory.path + "/sub", withIntermediateDirectories: true)
        let second = try ModelStore(name: "db", policy: .never, configuration: configuration)
        #expect(first.database === second.database)
    }

    @Test("Each policy belongs to its instance, even on a shared handle")
    func policiesPerInstance() throws {
        let fixture = Fixture()
        let strict = try fixture.open("db", policy: .highest)
        let relaxed = try fixture.open("db", policy: .never)
        try relaxed.set(1, forKey: "k")
        fixture.clock.advance(by: 11)
        #expect(try relaxed.object(Int.self, forKey: "k") == 1)
        #expect(try strict.object(Int.self, forKey: "k") == nil)  // and this read purges it
        #expect(try relaxed.object(Int.self, forKey: "k") == nil)
    }

    @Test("Closing one instance leaves the other working; the handle closes with the last")
    func handleClosesWithLastInstance() throws {
        let fixture = Fixture()
        let first = try fixture.open("db")
        let second = try fixture.open("db")
        let database = first.database
        try first.close()
        #expect(errorCase { _ = try first.object(Int.self, forKey: "k") } == "closed")
        try second.set(2, forKey: "k")
        #expect(database.engine.isOpen)
        try second.close()
        #expect(database.engine.isOpen == false)
        try first.close()  // closing twice is harmless
    }

    @Test("Releasing the last instance without close() closes the handle")
    func releaseCloses() throws {
        let fixture = Fixture()
        var store: ModelStore? = try fixture.open("db")
        let database = try #require(store?.database)
        try store?.set(1, forKey: "k")
        store = nil
        #expect(database.engine.isOpen == false)
        let reopened = try fixture.open("db")
        #expect(try reopened.object(Int.self, forKey: "k") == 1)
    }

    @Test("Every call on a closed instance throws closed")
    func closedInstance() throws {
        let store = try Fixture().open()
        try store.close()
        #expect(store.isClosed)
        #expect(errorCase { try store.set(1, forKey: "k") } == "closed")
        #expect(errorCase { _ = try store.object(Int.self, forKey: "k") } == "closed")
        #expect(errorCase { _ = try store.contains("k") } == "closed")
        #expect(errorCase { try store.removeObject(forKey: "k") } == "closed")
        #expect(errorCase { try store.removeObjects(forKeys: ["k"]) } == "closed")
        #expect(errorCase { _ = try store.removeAllObjects() } == "closed")
    }

    @Test("Each database directory carries the ModelStore marker")
    func marker() throws {
        let fixture = Fixture()
        let store = try fixture.open("db")
        #expect(FileManager.default.fileExists(atPath: store.url.path + "/.modelstore"))
        #expect(FileManager.default.fileExists(atPath: store.url.path + "/CURRENT"))
    }

    @Test("deleteFromDisk closes the database, removes its directory, and old instances throw closed")
    func deleteFromDisk() throws {
        let fixture = Fixture()
        let store = try fixture.open("db")
        let other = try fixture.open("db")
        try store.set(1, forKey: "k")
        try store.deleteFromDisk()
        #expect(fixture.directory.entries().isEmpty)
        #expect(errorCase { _ = try other.object(Int.self, forKey: "k") } == "closed")
        #expect(errorCase { try other.set(1, forKey: "k") } == "closed")
        let fresh = try fixture.open("db")
        #expect(try fresh.object(Int.self, forKey: "k") == nil)
    }

    @Test("deleteDatabase(named:) while the database is open closes it first")
    func deleteWhileOpen() throws {
        let fixture = Fixture()
        let store = try fixture.open("db")
        try store.set(1, forKey: "k")
        try ModelStore.deleteDatabase(named: "db", in: fixture.directory.url)
        #expect(errorCase { _ = try store.object(Int.self, forKey: "k") } == "closed")
        #expect(store.isClosed)
        #expect(fixture.directory.entries().isEmpty)
        try ModelStore.deleteDatabase(named: "db", in: fixture.directory.url)  // already gone: fine
    }

    @Test("The async delete variants work off the caller's thread")
    func asyncDeletes() async throws {
        let fixture = Fixture()
        let first = try fixture.open("one")
        _ = try fixture.open("two")
        try first.set(1, forKey: "k")
        try await ModelStore.deleteDatabase(named: "one", in: fixture.directory.url)
        #expect(fixture.directory.entries() == ["two"])
        try await ModelStore.deleteAllDatabases(in: fixture.directory.url)
        #expect(fixture.directory.entries().isEmpty)
    }

    @Test("deleteAllDatabases removes only ModelStore databases; foreign files, folders and links survive")
    func deleteAllSparesForeignFiles() throws {
        let fixture = Fixture()
        let root = fixture.directory.path
        let manager = FileManager.default
        for name in ["a", "b", "c"] { try fixture.open(name).set(1, forKey: "k") }
        // Foreign things a user might keep in the root, some named like LevelDB's files.
        try manager.createDirectory(atPath: root + "/photos", withIntermediateDirectories: true)
        try Data("mine".utf8).write(to: URL(fileURLWithPath: root + "/photos/CURRENT"))
        try Data("mine".utf8).write(to: URL(fileURLWithPath: root + "/LOG"))
        try Data("notes".utf8).write(to: URL(fileURLWithPath: root + "/notes.txt"))
        let outside = TemporaryDirectory()
        try Data("precious".utf8).write(to: outside.url.appendingPathComponent("keep.txt"))
        try manager.createSymbolicLink(atPath: root + "/link", withDestinationPath: outside.path)

        try ModelStore.deleteAllDatabases(in: fixture.directory.url)

        #expect(fixture.directory.entries() == ["photos", "LOG", "notes.txt", "link"])
        #expect(manager.fileExists(atPath: root + "/photos/CURRENT"))
        #expect(manager.fileExists(atPath: outside.path + "/keep.txt"))
    }

    @Test("A symbolic link named like a database is neither followed on open nor deleted")
    func symlinkIsNotFollowed() throws {
        let fixture = Fixture()
        let target = TemporaryDirectory()
        let other = try ModelStore(name: "real", policy: .never, configuration: {
            var configuration = fixture.configuration
            configuration.directory = target.url
            return configuration
        }())
        try other.set(1, forKey: "k")
        try other.close()
        try FileManager.default.createSymbolicLink(
            atPath: fixture.directory.path + "/db", withDestinationPath: target.path + "/real")

        #expect(errorCase { _ = try fixture.open("db") } == "notAModelStore")
        #expect(errorCase { try ModelStore.deleteDatabase(named: "db", in: fixture.directory.url) } == "notAModelStore")
        try ModelStore.deleteAllDatabases(in: fixture.directory.url)
        #expect(FileManager.default.fileExists(atPath: target.path + "/real/.modelstore"))
        #expect(fixture.directory.entries() == ["db"])
    }

    @Test("A symbolic link inside a database directory is removed, not followed, on delete")
    func symlinkInsideDatabase() throws {
        let fixture = Fixture()
        let outside = TemporaryDirectory()
        try Data("precious".utf8).write(to: outside.url.appendingPathComponent("keep.txt"))
        let store = try fixture.open("db")
        try FileManager.default.createSymbolicLink(atPath: store.url.path + "/escape", withDestinationPath: outside.path)
        try store.deleteFromDisk()
        #expect(FileManager.default.fileExists(atPath: outside.path + "/keep.txt"))
    }

    @Test("A foreign, non-empty folder with the database's name is refused and left untouched")
    func foreignFolderRefused() throws {
        let fixture = Fixture()
        let folder = fixture.directory.path + "/db"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Data("user log".utf8).write(to: URL(fileURLWithPath: folder + "/LOG"))
        #expect(errorCase { _ = try fixture.open("db") } == "notAModelStore")
        #expect(errorCase { try ModelStore.deleteDatabase(named: "db", in: fixture.directory.url) } == "notAModelStore")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["LOG"])
        #expect(try String(contentsOfFile: folder + "/LOG", encoding: .utf8) == "user log")
    }

    @Test("An empty folder ModelStore did not create is refused with notAModelStore, and deleteAll leaves it")
    func emptyFolderRefused() throws {
        let fixture = Fixture()
        let folder = fixture.directory.path + "/db"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        #expect(errorCase { _ = try fixture.open("db") } == "notAModelStore")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
        try ModelStore.deleteAllDatabases(in: fixture.directory.url)
        #expect(fixture.directory.entries() == ["db"])
    }

    @Test("A missing permission is an io error and deletes nothing", .enabled(if: getuid() != 0, "root ignores permissions"))
    func permissionDenied() throws {
        let fixture = Fixture()
        try FileManager.default.setAttributes([.posixPermissions: 0o500], ofItemAtPath: fixture.directory.path)
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: fixture.directory.path) }
        #expect(errorCase { _ = try fixture.open("db") } == "io")
    }
}

@Suite("Opening and closing from many threads")
struct OpenCloseRaceTests {
    @Test("Concurrent open/close cycles of one database never report locked in-process")
    func noSpuriousLockedInProcess() async throws {
        let fixture = Fixture()
        let configuration = fixture.configuration
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<4 {
                group.addTask {
                    for round in 0..<150 {
                        let store = try ModelStore(name: "db", policy: .never, configuration: configuration)
                        try store.set(round, forKey: "t\(task)")
                        try store.close()
                    }
                }
            }
            try await group.waitForAll()
        }
        let store = try fixture.open("db")
        #expect(try store.object(Int.self, forKey: "t0") == 149)
    }
}
