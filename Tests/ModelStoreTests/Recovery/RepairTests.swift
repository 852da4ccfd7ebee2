import Foundation
import Testing
@testable import ModelStore
import ModelStoreTestSupport

@Suite("ModelStore.repair(named:in:)")
struct RepairTests {
    @Test("Repairing a healthy database keeps every record and reports what it did")
    func healthyDatabase() throws {
        let fixture = Fixture()
        let sample = try SampleDatabase(fixture, count: 1500, placement: .tables)
        let report = try ModelStore.repair(named: "db", in: fixture.directory.url)
        #expect(report.url.path == sample.url.resolvingSymlinksInPath().path)
        #expect(report.recordsReadable == 1500)
        #expect(report.recordsWithDamagedHeaders == 0)
        #expect(report.discardedLogRecords == 0)
        #expect(report.filesBefore.contains("CURRENT"))
        #expect(report.filesAfter.contains("CURRENT"))
        #expect(report.filesAfter.contains(".modelstore"))
        #expect(report.levelDBLog.contains { $0.contains("entries OK") }, "\(report.levelDBLog)")
        #expect(report.duration > .zero)
        #expect(report.description.contains("records readable: 1500"))
        #expect(try sample.readAll() == [.exact: 1500])
    }

    @Test("A repair after a flipped log byte loses the damaged records but returns no wrong value", .long)
    func flippedLogSweep() throws {
        let fixture = Fixture()
        let pristine = try SampleDatabase(fixture, name: "pristine", placement: .log)
        let log = try #require(FileDamage.files(.writeAheadLog, in: pristine.url).last)
        let logName = URL(fileURLWithPath: log).lastPathComponent
        let size = try FileDamage.size(of: log)
        let copy = SampleDatabase(copying: pristine, as: "copy")
        var lost = 0
        for step in 0..<25 {
            let offset = 7 + step * (size - 8) / 24
            try FileDamage.copyDatabase(pristine.url, to: copy.url)
            try FileDamage.flipByte(in: copy.url.path + "/" + logName, at: offset)
            let report = try ModelStore.repair(named: "copy", in: fixture.directory.url)
            let outcomes = try #require(try copy.readAll())
            #expect(outcomes[.wrong] == nil && outcomes[.corrupted] == nil, "offset \(offset): \(outcomes)")
            #expect(report.recordsReadable == outcomes[.exact])
            lost += outcomes[.missing, default: 0]
        }
        #expect(lost > 0)
    }

    @Test("A repair after flipped table bytes drops damaged blocks but returns no wrong value", .long)
    func flippedTableSweep() throws {
        let fixture = Fixture()
        let pristine = try SampleDatabase(fixture, name: "pristine", placement: .tables, compression: false)
        let tables = pristine.recordTables.map { URL(fileURLWithPath: $0).lastPathComponent }
        let copy = SampleDatabase(copying: pristine, as: "copy")
        var random = SeededGenerator(seed: 21)
        for _ in 0..<15 {
            let table = tables.randomElement(using: &random)!
            try FileDamage.copyDatabase(pristine.url, to: copy.url)
            let path = copy.url.path + "/" + table
            try FileDamage.flipByte(in: path, at: Int.random(in: 0..<(try FileDamage.size(of: path)), using: &random))
            let report = try ModelStore.repair(named: "copy", in: fixture.directory.url)
            let outcomes = try #require(try copy.readAll())
            #expect(outcomes[.wrong] == nil && outcomes[.corrupted] == nil, "\(outcomes)")
            #expect(report.recordsReadable == outcomes[.exact])
        }
    }

    @Test("A repair rebuilds a deleted CURRENT file from the tables")
    func missingCurrent() throws {
        let fixture = Fixture()
        let sample = try SampleDatabase(fixture, count: 800, placement: .tables)
        try FileManager.default.removeItem(atPath: sample.url.path + "/CURRENT")
        #expect(errorCase { _ = try fixture.openQuietly() } == "corrupted")
        let report = try ModelStore.repair(named: "db", in: fixture.directory.url)
        #expect(report.recordsReadable == 800)
        #expect(try sample.readAll() == [.exact: 800])
    }

    @Test("A repair is refused with locked while another process has the database open")
    func refusedWhileLockedElsewhere() throws {
        let fixture = Fixture()
        let holder = try ChildProcess.testHelper(["hold", fixture.directory.path, "db"])
        #expect(holder.readLine() == "ready")
        let before = DatabaseFiles.names(in: fixture.directory.path + "/db")
        #expect(errorCase { _ = try ModelStore.repair(named: "db", in: fixture.directory.url) } == "locked")
        #expect(DatabaseFiles.names(in: fixture.directory.path + "/db") == before)
        holder.finish()
        _ = try ModelStore.repair(named: "db", in: fixture.directory.url)
        #expect(try fixture.openQuietly().object(Int.self, forKey: "holder") == 1)
    }

    @Test("A repair closes the database in this process first; old instances throw closed")
    func closesInProcessInstances() throws {
        let fixture = Fixture()
        let store = try fixture.openQuietly()
        try store.set(42, forKey: "answer")
        let report = try ModelStore.repair(named: "db", in: fixture.directory.url)
        #expect(report.recordsReadable == 1)
        #expect(errorCase { _ = try store.object(Int.self, forKey: "answer") } == "closed")
        #expect(store.isClosed)
        #expect(try fixture.openQuietly().object(Int.self, forKey: "answer") == 42)
    }

    @Test("Only a ModelStore database is repaired: missing, foreign, linked or invalid names are refused untouched")
    func refusesWhatIsNotOurs() throws {
        let fixture = Fixture()
        let root = fixture.directory.path
        let manager = FileManager.default
        // A foreign folder that looks like LevelDB's, and a link to a real database elsewhere.
        try manager.createDirectory(atPath: root + "/foreign", withIntermediateDirectories: true)
        try Data("user data".utf8).write(to: URL(fileURLWithPath: root + "/foreign/CURRENT"))
        try Data("user log".utf8).write(to: URL(fileURLWithPath: root + "/foreign/000001.log"))
        let elsewhere = Fixture()
        try SampleDatabase(elsewhere, name: "real", count: 10, placement: .log)
        try manager.createSymbolicLink(atPath: root + "/link", withDestinationPath: elsewhere.directory.path + "/real")

        func repair(_ name: String) -> String? {
            errorCase { _ = try ModelStore.repair(named: name, in: fixture.directory.url) }
        }
        #expect(repair("missing") == "notAModelStore")
        #expect(repair("foreign") == "notAModelStore")
        #expect(repair("link") == "notAModelStore")
        #expect(repair("../x") == "invalidName")
        let nowhere = fixture.directory.url.appendingPathComponent("no-such-root")
        #expect(errorCase { _ = try ModelStore.repair(named: "db", in: nowhere) } == "notAModelStore")

        #expect(fixture.directory.entries() == ["foreign", "link"])
        #expect(try manager.contentsOfDirectory(atPath: root + "/foreign").sorted() == ["000001.log", "CURRENT"])
        #expect(try String(contentsOfFile: root + "/foreign/CURRENT", encoding: .utf8) == "user data")
        #expect(!manager.fileExists(atPath: root + "/missing"))
        #expect(!manager.fileExists(atPath: nowhere.path))
    }

    @Test("The async variant repairs off the caller's thread")
    func asyncVariant() async throws {
        let fixture = Fixture()
        try SampleDatabase(fixture, count: 50, placement: .log)
        let report = try await ModelStore.repair(named: "db", in: fixture.directory.url)
        #expect(report.recordsReadable == 50)
    }

    @Test("A record whose ModelStore header is damaged is counted in the report")
    func countsDamagedHeaders() throws {
        let fixture = Fixture()
        let store = try fixture.openQuietly()
        try store.set(1, forKey: "good")
        try store.database.write { engine in
            try [UInt8]("bad".utf8).withUnsafeBytes { key in
                try [UInt8]([7, 7, 7]).withUnsafeBytes { try engine.put(key: key, value: $0, sync: false) }
            }
        }
        try store.close()
        let report = try ModelStore.repair(named: "db", in: fixture.directory.url)
        #expect(report.recordsReadable == 2)
        #expect(report.recordsWithDamagedHeaders == 1)
    }
}
