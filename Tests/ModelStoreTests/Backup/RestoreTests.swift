import Foundation
import Testing
@testable import ModelStore
import ModelStoreTestSupport

/// `ModelStore.restore(from:named:in:replacingExisting:)`: installs a backup under a name.
@Suite("Restore")
struct RestoreTests {
    /// A backup of a database holding `count` users, at `backups/<name>`.
    static func backup(_ fixture: Fixture, name: String = "copy", count: Int = 200, prefix: String = "u") throws -> URL {
        let store = try fixture.openQuietly("source-\(name)")
        defer { try? store.close() }
        try store.write { batch in
            for index in 0..<count { try batch.set(User.sample("\(prefix)\(index)"), forKey: "u\(index)") }
        }
        return try store.backup(to: BackupTests.destination(fixture, name)).url
    }

    /// Whether database `name` holds exactly `count` users named with `prefix`.
    static func holds(_ fixture: Fixture, _ name: String, count: Int, prefix: String = "u") throws -> Bool {
        let store = try fixture.openQuietly(name)
        defer { try? store.close() }
        guard try store.count() == count else { return false }
        return try (0..<count).allSatisfy { try store.object(User.self, forKey: "u\($0)") == User.sample("\(prefix)\($0)") }
    }

    @Test("A restore installs the backup under a new name, leaves the backup unchanged and no staging folder")
    func restoresUnderANewName() throws {
        let fixture = Fixture()
        let backup = try Self.backup(fixture)
        let before = FileHashes(of: backup)
        let report = try ModelStore.restore(from: backup, named: "restored", in: fixture.directory.url)
        #expect(report.url.lastPathComponent == "restored")
        #expect(report.records >= 200)
        #expect(try Self.holds(fixture, "restored", count: 200))
        #expect(FileHashes(of: backup) == before)
        #expect(!fixture.directory.entries().contains { $0.hasPrefix(".modelstore-") })
        #expect(!FileManager.default.fileExists(atPath: report.url.path + "/" + StagedDatabase.noteName))
    }

    @Test("A restore refuses to overwrite a database unless asked, and changes nothing when it refuses")
    func refusesToOverwrite() throws {
        let fixture = Fixture()
        let backup = try Self.backup(fixture, prefix: "new")
        let existing = try fixture.openQuietly("db")
        try existing.set(User.sample("old"), forKey: "u0")
        try existing.close()
        let path = fixture.directory.url.appendingPathComponent("db")
        let before = FileHashes(of: path)
        #expect(errorCase { try ModelStore.restore(from: backup, named: "db", in: fixture.directory.url) } == "alreadyExists")
        #expect(FileHashes(of: path) == before)
        #expect(!fixture.directory.entries().contains { $0.hasPrefix(".modelstore-") })

        try ModelStore.restore(from: backup, named: "db", in: fixture.directory.url, replacingExisting: true)
        #expect(try Self.holds(fixture, "db", count: 200, prefix: "new"))
        #expect(!fixture.directory.entries().contains { $0.hasPrefix(".modelstore-") })
    }

    @Test("Replacing a database this process has open closes it first; its instances then throw closed")
    func replacingAnOpenDatabase() throws {
        let fixture = Fixture()
        let backup = try Self.backup(fixture)
        let open = try fixture.openQuietly("db")
        try open.set(1, forKey: "old")
        try ModelStore.restore(from: backup, named: "db", in: fixture.directory.url, replacingExisting: true)
        #expect(errorCase { _ = try open.object(Int.self, forKey: "old") } == "closed")
        #expect(try Self.holds(fixture, "db", count: 200))
    }

    @Test("Replacing a database another process holds is refused with locked, and nothing changes")
    func replacingADatabaseInUse() throws {
        let fixture = Fixture()
        let backup = try Self.backup(fixture)
        let holder = try ChildProcess.testHelper(["hold", fixture.directory.path, "db"])
        #expect(holder.readLine() == "ready")
        defer { holder.finish() }
        #expect(
            errorCase {
                try ModelStore.restore(from: backup, named: "db", in: fixture.directory.url, replacingExisting: true)
            } == "locked")
        #expect(!fixture.directory.entries().contains { $0.hasPrefix(".modelstore-new-") })
    }

    @Test("A restore never replaces a folder, file or link ModelStore did not create, nor reads a source that is not a database")
    func refusesForeignTargetsAndSources() throws {
        let fixture = Fixture()
        let backup = try Self.backup(fixture)
        let foreign = fixture.directory.url.appendingPathComponent("mine")
        try FileManager.default.createDirectory(at: foreign, withIntermediateDirectories: true)
        for replacing in [false, true] {
            #expect(
                errorCase {
                    try ModelStore.restore(
                        from: backup, named: "mine", in: fixture.directory.url, replacingExisting: replacing)
                } == "notAModelStore")
        }
        #expect(errorCase { try ModelStore.restore(from: foreign, named: "x", in: fixture.directory.url) } == "notAModelStore")
        #expect(
            errorCase {
                try ModelStore.restore(from: backup.appendingPathComponent("missing"), named: "x", in: fixture.directory.url)
            } == "notAModelStore")
        #expect(errorCase { try ModelStore.restore(from: backup, named: "a/b", in: fixture.directory.url) } == "invalidName")
        #expect(fixture.directory.entries().subtracting(["source-copy", "backups", "mine"]).isEmpty)
    }

    @Test("Names that differ only in Unicode normalisation are two databases: restoring one never replaces the other")
    func normalisationVariantsAreDistinct() throws {
        let fixture = Fixture()
        let backup = try Self.backup(fixture, prefix: "new")
        let composed = "caf\u{E9}"
        let decomposed = "cafe\u{301}"
        try ModelStore.restore(from: backup, named: composed, in: fixture.directory.url)
        #if os(Linux)
        // Linux keeps names as bytes: the second spelling is another folder.
        try ModelStore.restore(from: backup, named: decomposed, in: fixture.directory.url)
        // Compared as bytes: a Set of Strings would merge the two spellings.
        let names = try FileManager.default.contentsOfDirectory(atPath: fixture.directory.path).map { Array($0.utf8) }
        #expect(Set(names).isSuperset(of: [Array(composed.utf8), Array(decomposed.utf8)]))
        #else
        #expect(errorCase { try ModelStore.restore(from: backup, named: decomposed, in: fixture.directory.url) } == "alreadyExists")
        #endif
        #expect(try Self.holds(fixture, composed, count: 200, prefix: "new"))
    }

    @Test("A backup with a damaged record is refused before anything under the name changes")
    func damagedBackupIsRefused() throws {
        let fixture = Fixture()
        let store = try fixture.openQuietly("source")
        try store.set("intact", forKey: "a")
        try store.set("will be damaged", forKey: "b")
        let backup = try store.backup(to: BackupTests.destination(fixture)).url
        try store.close()
        // Flip a byte of b's value where the backup holds it (a table: a backup flushes its log).
        let names = try FileManager.default.contentsOfDirectory(atPath: backup.path)
        let file = try #require(try names.first { name in
            try Data(contentsOf: backup.appendingPathComponent(name)).range(of: Data("will be damaged".utf8)) != nil
        })
        var bytes = try Data(contentsOf: backup.appendingPathComponent(file))
        let range = try #require(bytes.range(of: Data("will be damaged".utf8)))
        bytes[range.lowerBound] ^= 0x01
        try bytes.write(to: backup.appendingPathComponent(file))
        #expect(errorCase { try ModelStore.restore(from: backup, named: "restored", in: fixture.directory.url) } == "corrupted")
        #expect(!fixture.directory.entries().contains("restored"))
        #expect(!fixture.directory.entries().contains { $0.hasPrefix(".modelstore-") })
    }

    @Test("A backup whose CURRENT names a missing MANIFEST is refused at once as corrupted, nothing changed")
    func missingManifestIsCorruption() throws {
        let fixture = Fixture()
        let backup = try Self.backup(fixture)
        let manifest = try #require(
            try FileManager.default.contentsOfDirectory(atPath: backup.path).first { $0.hasPrefix("MANIFEST-") })
        try FileManager.default.removeItem(at: backup.appendingPathComponent(manifest))
        let clock = ContinuousClock()
        let started = clock.now
        #expect(errorCase { try ModelStore.restore(from: backup, named: "restored", in: fixture.directory.url) } == "corrupted")
        #expect(clock.now - started < .seconds(2))  // no retrying for damage
        #expect(!fixture.directory.entries().contains("restored"))
    }

    @Test("A restore copies a database another process is writing to, consistently")
    func restoresFromADatabaseInUse() throws {
        let fixture = Fixture()
        let writer = try ChildProcess.testHelper(["hold", fixture.directory.path, "live"])
        #expect(writer.readLine() == "ready")
        defer { writer.finish() }
        try ModelStore.restore(
            from: fixture.directory.url.appendingPathComponent("live"), named: "copy", in: fixture.directory.url)
        let copy = try fixture.openQuietly("copy")
        defer { try? copy.close() }
        #expect(try copy.object(Int.self, forKey: "holder") == 1)
    }
}
