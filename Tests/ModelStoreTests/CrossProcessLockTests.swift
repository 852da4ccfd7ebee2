import Foundation
import Testing
@testable import ModelStore

@Suite("Databases held by another process")
struct CrossProcessLockTests {
    @Test("Opening a database another process holds fails quickly with locked; it opens once released")
    func lockedByOtherProcess() throws {
        let fixture = Fixture()
        let holder = try HelperProcess(["hold", fixture.directory.path, "db"])
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
        #expect(try HelperProcess.run(["open", fixture.directory.path, "db"]) == "locked")
        try store.close()
    }
}
