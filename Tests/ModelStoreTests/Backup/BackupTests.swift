import Foundation
import Testing
@testable import ModelStore
import ModelStoreTestSupport

/// `backup(to:)`: a consistent copy from a snapshot, written as a database that opens by itself.
@Suite("Backup")
struct BackupTests {
    /// The backup folder `name` under the fixture's `backups` folder.
    static func destination(_ fixture: Fixture, _ name: String = "copy") -> URL {
        fixture.directory.url.appendingPathComponent("backups/\(name)", isDirectory: true)
    }

    /// Opens the backup at `url` as the database it is.
    static func open(_ url: URL, fixture: Fixture) throws -> ModelStore {
        var configuration = fixture.quietConfiguration
        configuration.directory = url.deletingLastPathComponent()
        return try ModelStore(name: url.lastPathComponent, policy: .never, configuration: configuration)
    }

    @Test("A backup opens by itself with every record, collection, tag, metadata and the recorded policy")
    func backupOpensByItself() throws {
        let fixture = Fixture()
        let store = try fixture.open(policy: .low)
        defer { try? store.close() }
        for index in 0..<500 { try store.set(User.sample("u\(index)"), forKey: "u\(index)", tags: ["even\(index % 2)"]) }
        try store.collection("books").set(Book(name: "Notes", price: 9), forKey: "b1", metadata: ["etag": "x"])

        let report = try store.backup(to: Self.destination(fixture))
        #expect(report.records == 501)  // the records alone: tag index entries and the policy are apart
        #expect(report.systemEntries >= 501)
        #expect(report.bytes > 0)
        #expect(FileManager.default.fileExists(atPath: report.url.path + "/.modelstore"))
        #expect(!FileManager.default.fileExists(atPath: report.url.path + "/" + StagedDatabase.noteName))

        let backups = report.url.deletingLastPathComponent()
        #expect(try ModelStore.recordedPolicy(ofDatabaseNamed: "copy", in: backups) == .low)
        let copy = try Self.open(report.url, fixture: fixture)
        defer { try? copy.close() }
        #expect(try copy.count() == 500)
        #expect(try copy.object(User.self, forKey: "u42") == User.sample("u42"))
        #expect(try copy.collection("books").object(Book.self, forKey: "b1") == Book(name: "Notes", price: 9))
        #expect(try copy.removeObjects(taggedWith: "even0") == 250)  // the tag index came along
        // No staging folder is left next to the backup.
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: report.url.deletingLastPathComponent().path)) == ["copy"])
    }

    @Test("A backup never writes over anything at its destination: a database, a folder or a file")
    func refusesExistingDestination() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        defer { try? store.close() }
        try store.set(1, forKey: "a")
        let taken = Self.destination(fixture, "taken")
        try FileManager.default.createDirectory(at: taken, withIntermediateDirectories: true)
        try Data("mine".utf8).write(to: taken.appendingPathComponent("notes.txt"))
        #expect(errorCase { try store.backup(to: taken) } == "alreadyExists")
        #expect(try FileManager.default.contentsOfDirectory(atPath: taken.path) == ["notes.txt"])

        let first = try store.backup(to: Self.destination(fixture))
        #expect(errorCase { try store.backup(to: first.url) } == "alreadyExists")
        #expect(errorCase { try store.backup(to: fixture.directory.url.appendingPathComponent("db")) } == "alreadyExists")
        #expect(errorCase { try store.backup(to: fixture.directory.url.appendingPathComponent("..")) } == "invalidName")
        #expect(errorCase { try store.backup(to: first.url.appendingPathComponent("inside")) } == "rootIsADatabase")
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: first.url.deletingLastPathComponent().path))
            == ["copy", "taken"])
    }

    @Test("A closed store refuses to back up")
    func closedStoreRefuses() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        try store.close()
        #expect(errorCase { try store.backup(to: Self.destination(fixture)) } == "closed")
    }

    @Test("Backups taken while two writers rewrite every key in atomic batches each hold one moment: every key has the same generation")
    func backupIsASnapshotWhileWritersRun() throws {
        let fixture = Fixture()
        var configuration = fixture.quietConfiguration
        configuration.writeBufferSize = 64 << 10  // many flushes and compactions during the backups
        let store = try ModelStore(name: "db", policy: .never, configuration: configuration)
        defer { try? store.close() }
        let keys = (0..<300).map { "key-\($0)" }
        let padding = String(repeating: "x", count: 200)
        try store.write { batch in for key in keys { try batch.set("0 " + padding, forKey: key) } }

        let stop = AtomicFlag()
        let writers = (1...2).map { writer in
            Thread {
                var generation = writer
                while !stop.isSet {
                    _ = try? store.write { batch in
                        for key in keys { try batch.set("\(generation) " + padding, forKey: key) }
                    }
                    generation += 2
                }
            }
        }
        writers.forEach { $0.start() }
        defer { stop.set() }

        var generations: Set<String> = []
        for round in 0..<6 {
            let report = try store.backup(to: Self.destination(fixture, "copy\(round)"))
            let copy = try Self.open(report.url, fixture: fixture)
            let values = try keys.map { try copy.object(String.self, forKey: $0) }
            try copy.close()
            #expect(values.allSatisfy { $0 != nil })
            let seen = Set(values.compactMap { $0?.split(separator: " ").first.map(String.init) })
            #expect(seen.count == 1, "backup \(round) mixes generations \(seen.sorted())")
            generations.formUnion(seen)
        }
        stop.set()
        #expect(generations.count > 1, "the writers made no progress during the backups")
    }

    @Test("Progress reports grow to the entries copied, with an estimate of the total")
    func progressIsReported() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        defer { try? store.close() }
        try store.write { batch in for index in 0..<10_000 { try batch.set(index, forKey: "k\(index)") } }
        try store.compact()  // into a table, whose size LevelDB estimates (BackupCountTests: before, nil)
        var reports: [BackupProgress] = []
        let report = try store.backup(to: Self.destination(fixture)) { reports.append($0) }
        #expect(reports.count >= 2)
        #expect(reports.last?.records == report.records)
        #expect(zip(reports, reports.dropFirst()).allSatisfy { $0.records < $1.records })
        #expect(reports.first?.estimatedTotalBytes != nil)
    }

    @Test("The async backup writes the same database without blocking the caller")
    func asyncBackup() async throws {
        let fixture = Fixture()
        let store = try fixture.open()
        defer { try? store.close() }
        try store.set("v", forKey: "k")
        let report = try await store.backup(to: Self.destination(fixture))
        let copy = try Self.open(report.url, fixture: fixture)
        defer { try? copy.close() }
        #expect(try copy.object(String.self, forKey: "k") == "v")
    }
}

/// A flag threads set and read (tests only).
final class AtomicFlag: @unchecked Sendable {
    // @unchecked: `value` is only touched under `lock`.
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.lock(); defer { lock.unlock() }; return value }
    func set() { lock.lock(); value = true; lock.unlock() }
}
