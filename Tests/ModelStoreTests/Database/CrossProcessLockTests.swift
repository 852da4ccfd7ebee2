import Foundation
import Testing
@testable import ModelStore
import ModelStoreTestSupport

@Suite("Databases held by another process")
struct CrossProcessLockTests {
    @Test("Opening a database another process holds fails quickly with locked; it opens once released")
    func lockedByOtherProcess() throws {
        let fixture = Fixture()
        let holder = try ChildProcess.testHelper(["hold", fixture.directory.path, "db"])
        #expect(holder.readLine() == "ready")

        let started = Date()
        do {
            _ = try fixture.open("db")
            Issue.record("expected locked")
        } catch let ModelStoreError.locked(path, message) {
            #expect(path.hasSuffix("/db"))
            #expect(!message.isEmpty)
        }
        #expect(Date().timeIntervalSince(started) < 1)
        // Deleting is refused too, and deletes nothing.
        #expect(errorCase { try ModelStore.deleteDatabase(named: "db", in: fixture.directory.url) } == "locked")
        #expect(errorCase { try ModelStore.deleteAllDatabases(in: fixture.directory.url) } == "locked")

        holder.finish()
        #expect(holder.process.terminationStatus == 0)
        let store = try fixture.open("db")
        #expect(try store.object(Int.self, forKey: "holder") == 1)
    }

    @Test("Another process cannot open a database this process holds, even after a failed second open here")
    func heldHereRefusedThere() throws {
        let fixture = Fixture()
        let store = try fixture.open("db")
        _ = try fixture.open("db")  // a second in-process open shares the handle: no second leveldb_open
        #expect(try ChildProcess.runTestHelper(["open", fixture.directory.path, "db"]) == ["locked"])
        try store.close()
    }
}

@Suite("First opens racing in many processes")
struct ConcurrentCreationTests {
    @Test("Processes opening the same new names at once: each open succeeds or is told locked, never notAModelStore", .long)
    func simultaneousFirstOpens() throws {
        let fixture = Fixture()
        let (processes, names) = (24, 40)
        // Started at a common moment of the wall clock, just after every helper is ready.
        var helpers: [ChildProcess] = []
        let start = Date().timeIntervalSince1970 + 2
        for _ in 0..<processes {
            helpers.append(try ChildProcess.testHelper(["race-open", fixture.directory.path, "db", "\(names)", "\(start)"]))
        }
        for helper in helpers { #expect(helper.readLine() == "ready") }
        for helper in helpers { helper.closeInput() }
        let outcomes = helpers.flatMap { helper in
            defer { helper.finish() }
            return (helper.readLine() ?? "no-answer").split(separator: " ").map(String.init)
        }
        #expect(outcomes.count == processes * names)
        let counts = Dictionary(grouping: outcomes, by: { $0 }).mapValues(\.count)
        #expect(Set(counts.keys).isSubset(of: ["ok", "locked"]), "\(counts)")
        // Each name is one database, and no staging folder is left behind.
        #expect(fixture.directory.entries() == Set((0..<names).map { "db-\($0)" }))
    }
}

@Suite("Creations abandoned by a crash")
struct AbandonedCreationTests {
    @Test("An abandoned creation folder is removed by the next creation; one whose creator holds its lock is left")
    func abandonedCreationsAreRemoved() throws {
        let fixture = Fixture()
        let old = fixture.directory.path + "/" + StoreDirectory.creationPrefix + "crashed"
        let young = fixture.directory.path + "/" + StoreDirectory.creationPrefix + "in-progress"
        for folder in [old, young] {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try StoreDirectory.writeMarker(in: folder)
        }
        try FileManager.default.setAttributes(
            [.modificationDate: Date().addingTimeInterval(-3_600)], ofItemAtPath: old)
        // The creation in progress holds the lock on its marker, as a creating process does.
        let creator = open(young + "/" + StoreDirectory.markerName, O_RDONLY | O_CLOEXEC)
        defer {
            flock(creator, LOCK_UN)
            close(creator)
        }
        #expect(flock(creator, LOCK_EX | LOCK_NB) == 0)

        _ = try fixture.open("db")
        #expect(fixture.directory.entries() == ["db", StoreDirectory.creationPrefix + "in-progress"])
        // Nobody treats a creation in progress as a database.
        try ModelStore.deleteAllDatabases(in: fixture.directory.url)
        #expect(fixture.directory.entries() == [StoreDirectory.creationPrefix + "in-progress"])
    }

    @Test("An abandoned creation that holds anything besides its marker keeps that content")
    func abandonedCreationWithOtherContentIsKept() throws {
        let fixture = Fixture()
        let old = fixture.directory.path + "/" + StoreDirectory.creationPrefix + "crashed"
        try FileManager.default.createDirectory(atPath: old, withIntermediateDirectories: true)
        try StoreDirectory.writeMarker(in: old)
        try Data("someone's".utf8).write(to: URL(fileURLWithPath: old + "/notes.txt"))
        try FileManager.default.setAttributes(
            [.modificationDate: Date().addingTimeInterval(-3_600)], ofItemAtPath: old)
        _ = try fixture.open("db")
        #expect(try FileManager.default.contentsOfDirectory(atPath: old) == ["notes.txt"])
    }
}
