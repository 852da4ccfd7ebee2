import Foundation
import Logging
import Testing
@testable import ModelStore
import ModelStoreTestSupport

@Suite("Configuration.corruptionPolicy", .serialized)
struct CorruptionPolicyTests {
    /// Damages the sample's newest log so a paranoid open reports corruption.
    private func damageLog(_ sample: SampleDatabase) throws {
        let log = try #require(FileDamage.files(.writeAheadLog, in: sample.url).last)
        try FileDamage.flipByte(in: log, at: try FileDamage.size(of: log) / 2)
    }

    @Test(".fail is the default: corrupted is thrown, logged as an error, and no file changes")
    func failIsDefault() throws {
        #expect(ModelStore.Configuration().corruptionPolicy == .fail)
        let fixture = Fixture()
        let sample = try SampleDatabase(fixture, placement: .log)
        try damageLog(sample)
        let before = try snapshotOfFiles(sample.url)
        let logs = LogCapture()
        let configuration = fixture.configuration(logs: logs)
        let outcome = errorCase { _ = try ModelStore(name: "db", policy: .never, configuration: configuration) }
        #expect(outcome == "corrupted")
        #expect(try snapshotOfFiles(sample.url) == before)
        let entry = try #require(logs.all.first { $0.level == .error })
        #expect(entry.metadata["corruptionPolicy"] == "fail")
        #expect(entry.metadata["error"]?.contains("checksum mismatch") == true)
    }

    @Test(".repair repairs a damaged database, opens it, and logs what it did; no value comes back wrong")
    func repairPolicy() throws {
        let fixture = Fixture()
        let sample = try SampleDatabase(fixture, placement: .log)
        try damageLog(sample)
        let logs = LogCapture()
        var configuration = fixture.configuration(logs: logs)
        configuration.corruptionPolicy = .repair
        let store = try ModelStore(name: "db", policy: .never, configuration: configuration)
        try store.set("new", forKey: "after-repair")
        try store.close()
        let outcomes = try #require(try sample.readAll())
        #expect(outcomes[.wrong] == nil && outcomes[.corrupted] == nil)
        #expect(outcomes[.exact, default: 0] > 0)
        #expect(logs.all.contains { $0.level == .warning && $0.message.contains("repairing") })
        let notice = try #require(logs.all.first { $0.message == "Repaired damaged database" })
        #expect(notice.metadata["discardedLogRecords"] == "1")
        #expect(notice.metadata["levelDBLog"]?.isEmpty == false)
    }

    @Test(".reset deletes only LevelDB's files and starts empty; the marker, foreign files and other databases stay")
    func resetPolicy() throws {
        let fixture = Fixture()
        let root = fixture.directory.path
        let sample = try SampleDatabase(fixture, placement: .log)
        try SampleDatabase(fixture, name: "sibling", count: 100, placement: .tables)
        try Data("mine".utf8).write(to: URL(fileURLWithPath: sample.url.path + "/notes.txt"))
        try FileManager.default.createDirectory(atPath: root + "/photos", withIntermediateDirectories: true)
        try Data("mine".utf8).write(to: URL(fileURLWithPath: root + "/photos/000005.ldb"))
        try damageLog(sample)

        let logs = LogCapture()
        var configuration = fixture.configuration(logs: logs)
        configuration.corruptionPolicy = .reset
        let store = try ModelStore(name: "db", policy: .never, configuration: configuration)
        #expect(try store.contains(SampleDatabase.key(0)) == false)
        try store.set(1, forKey: "fresh")
        #expect(try store.object(Int.self, forKey: "fresh") == 1)
        try store.close()

        let left = Set(DatabaseFiles.names(in: sample.url.path))
        #expect(left.isSuperset(of: [".modelstore", "notes.txt"]))
        #expect(fixture.directory.entries() == ["db", "sibling", "photos"])
        #expect(FileManager.default.fileExists(atPath: root + "/photos/000005.ldb"))
        #expect(try SampleDatabase(copying: sample, as: "sibling", count: 100).readAll() == [.exact: 100])
        let notice = try #require(logs.all.first { $0.message == "Reset damaged database" })
        #expect(notice.metadata["deletedFiles"]?.contains("CURRENT") == true)
    }

    @Test(".reset also covers a missing CURRENT file")
    func resetOnMissingCurrent() throws {
        let fixture = Fixture()
        let sample = try SampleDatabase(fixture, count: 100, placement: .tables)
        try FileManager.default.removeItem(atPath: sample.url.path + "/CURRENT")
        var configuration = fixture.quietConfiguration
        configuration.corruptionPolicy = .reset
        let store = try ModelStore(name: "db", policy: .never, configuration: configuration)
        #expect(try store.contains(SampleDatabase.key(0)) == false)
    }

    @Test("Neither .repair nor .reset acts on a lock held by another process", arguments: [CorruptionPolicy.repair, .reset])
    func lockConflictTouchesNothing(policy: CorruptionPolicy) throws {
        let fixture = Fixture()
        let holder = try ChildProcess.testHelper(["hold", fixture.directory.path, "db"])
        #expect(holder.readLine() == "ready")
        let before = try snapshotOfFiles(fixture.directory.url.appendingPathComponent("db"))
        var configuration = fixture.quietConfiguration
        configuration.corruptionPolicy = policy
        #expect(errorCase { _ = try ModelStore(name: "db", policy: .never, configuration: configuration) } == "locked")
        #expect(try snapshotOfFiles(fixture.directory.url.appendingPathComponent("db")) == before)
        holder.finish()
        #expect(try fixture.openQuietly().object(Int.self, forKey: "holder") == 1)
    }

    @Test(
        "Neither .repair nor .reset acts on a missing permission (as user nobody)",
        .enabled(if: getuid() == 0, "needs root to run the helper as nobody"),
        arguments: [CorruptionPolicy.repair, .reset], [false, true])
    func permissionErrorTouchesNothing(policy: CorruptionPolicy, lockWritable: Bool) throws {
        let fixture = Fixture()
        let sample = try SampleDatabase(fixture, count: 300, placement: .log)
        let manager = FileManager.default
        try manager.setAttributes([.posixPermissions: 0o666], ofItemAtPath: sample.url.path + "/.modelstore")
        if lockWritable {  // LevelDB then gets as far as recovering the log, and fails writing a table
            try manager.setAttributes([.posixPermissions: 0o666], ofItemAtPath: sample.url.path + "/LOCK")
        }
        let before = try snapshotOfFiles(sample.url)
        let output = try ChildProcess.runTestHelper(["open-with-policy", fixture.directory.path, "db", "\(policy)", "nobody"])
        #expect(output.first?.hasPrefix("error io ") == true, "\(output)")
        #expect(output.first?.contains("Permission denied") == true, "\(output)")
        #expect(try snapshotOfFiles(sample.url) == before)
        #expect(try sample.readAll() == [.exact: 300])
    }

    /// Name, size and modification time of every file LevelDB's data lives in (LOG, which
    /// LevelDB rotates at every open attempt, is left out).
    private func snapshotOfFiles(_ directory: URL) throws -> [String: String] {
        var result: [String: String] = [:]
        for name in DatabaseFiles.names(in: directory.path) where !name.hasPrefix("LOG") {
            let attributes = try FileManager.default.attributesOfItem(atPath: directory.path + "/" + name)
            result[name] = "\(attributes[.size] ?? 0) \(attributes[.modificationDate] ?? 0)"
        }
        return result
    }
}
