import Foundation
import Testing
@testable import ModelStore
import ModelStoreTestSupport

/// Another program holds a database through LevelDB's C API, with no ModelStore marker lock:
/// only LevelDB's own `LOCK` says it is in use. Repairs and deletes must see that lock before
/// they touch anything.
@Suite("Another LevelDB client holding a database", .serialized)
struct ForeignLevelDBLockTests {
    /// Starts a helper that opens `<root>/db` with plain LevelDB and keeps it open.
    private func holdWithLevelDB(_ fixture: Fixture) throws -> ChildProcess {
        let holder = try ChildProcess.testHelper(["hold-leveldb", fixture.directory.path, "db"])
        try #require(holder.readLine() == "ready")
        return holder
    }

    /// Every entry under the database folder, with its size, to see that nothing changed.
    private func snapshot(_ url: URL) -> [String: Int] {
        var entries: [String: Int] = [:]
        let enumerator = FileManager.default.enumerator(atPath: url.path)
        while let name = enumerator?.nextObject() as? String {
            guard !name.hasPrefix("LOG") else { continue }  // LevelDB's own diagnostics
            let attributes = try? FileManager.default.attributesOfItem(atPath: url.path + "/" + name)
            entries[name] = (attributes?[.size] as? NSNumber)?.intValue ?? -1
        }
        return entries
    }

    @Test("Opening is refused with locked")
    func openRefused() throws {
        let fixture = Fixture()
        try SampleDatabase(fixture, count: 200, placement: .log)
        let holder = try holdWithLevelDB(fixture)
        defer { holder.finish() }
        #expect(errorCase { _ = try fixture.openQuietly() } == "locked")
    }

    @Test("repair(named:) is refused with locked and changes no file")
    func repairRefused() throws {
        let fixture = Fixture()
        let sample = try SampleDatabase(fixture, count: 200, placement: .log)
        let holder = try holdWithLevelDB(fixture)
        let before = snapshot(sample.url)
        #expect(errorCase { _ = try ModelStore.repair(named: "db", in: fixture.directory.url) } == "locked")
        #expect(snapshot(sample.url) == before)
        holder.finish()
        #expect(try ModelStore.repair(named: "db", in: fixture.directory.url).recordsReadable == 200)
        #expect(try sample.readAll() == [.exact: 200])
    }

    @Test("deleteDatabase and deleteAllDatabases are refused with locked and delete nothing")
    func deleteRefused() throws {
        let fixture = Fixture()
        let sample = try SampleDatabase(fixture, count: 200, placement: .log)
        let holder = try holdWithLevelDB(fixture)
        let before = snapshot(sample.url)
        #expect(errorCase { try ModelStore.deleteDatabase(named: "db", in: fixture.directory.url) } == "locked")
        #expect(errorCase { try ModelStore.deleteAllDatabases(in: fixture.directory.url) } == "locked")
        #expect(snapshot(sample.url) == before)
        #expect(fixture.directory.entries() == ["db"])
        holder.finish()
        try ModelStore.deleteDatabase(named: "db", in: fixture.directory.url)
        #expect(fixture.directory.entries().isEmpty)
    }

    @Test("The .repair and .reset policies are refused with locked and change no file",
          arguments: [CorruptionPolicy.repair, .reset])
    func policyRefused(policy: CorruptionPolicy) throws {
        let fixture = Fixture()
        let sample = try SampleDatabase(fixture, count: 200, placement: .tables)
        let holder = try holdWithLevelDB(fixture)
        defer { holder.finish() }
        // Damage ModelStore detects before LevelDB's open (and its lock) is reached.
        try FileManager.default.removeItem(atPath: sample.url.path + "/CURRENT")
        let before = snapshot(sample.url)
        var configuration = fixture.quietConfiguration
        configuration.corruptionPolicy = policy
        #expect(errorCase { _ = try ModelStore(name: "db", policy: .never, configuration: configuration) } == "locked")
        #expect(snapshot(sample.url) == before)
    }

    @Test("After a repair, LevelDB's lock is free again: the repaired database opens here and in another process")
    func lockReleasedAfterRepair() throws {
        let fixture = Fixture()
        try SampleDatabase(fixture, count: 50, placement: .log)
        _ = try ModelStore.repair(named: "db", in: fixture.directory.url)
        #expect(try ChildProcess.runTestHelper(["open", fixture.directory.path, "db"]) == ["ok"])
        #expect(try fixture.openQuietly().count() == 50)
    }
}
