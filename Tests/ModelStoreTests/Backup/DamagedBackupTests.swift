import Foundation
import Testing
@testable import ModelStore
import ModelStoreTestSupport

/// A backup that lost or cut short one of its files (a copy to a full disk, an interrupted
/// transfer) restores every record or is refused: never a database with fewer records.
@Suite("Restore: damaged backups")
struct DamagedBackupTests {
    static let count = 3_000

    /// A backup of `count` users at `backups/copy`, with the names of its LevelDB files.
    static func backup(_ fixture: Fixture) throws -> (url: URL, files: [String]) {
        let store = try fixture.openQuietly("source")
        defer { try? store.close() }
        try store.write { batch in
            for index in 0..<count { try batch.set(User.sample("u\(index)"), forKey: "u\(index)") }
        }
        let url = try store.backup(to: BackupTests.destination(fixture)).url
        let files = try FileManager.default.contentsOfDirectory(atPath: url.path).filter {
            [.current, .manifest, .writeAheadLog, .table].contains(DatabaseFiles.kind(ofName: $0))
        }
        return (url, files.sorted())
    }

    /// Restores `backup` as `name`: nil if it was refused, else the number of users it holds.
    static func restoredCount(_ fixture: Fixture, _ backup: URL, as name: String) throws -> Int? {
        do {
            try ModelStore.restore(from: backup, named: name, in: fixture.directory.url)
        } catch is ModelStoreError {
            #expect(!fixture.directory.entries().contains(name))
            return nil
        }
        let store = try fixture.openQuietly(name)
        defer { try? store.close() }
        return try store.count()
    }

    /// A copy of the backup's folder, one file changed by `damage`.
    static func damagedCopy(_ fixture: Fixture, of backup: URL, file: String, tag: Int, _ damage: (URL) throws -> Void)
        throws -> URL
    {
        let copy = fixture.directory.url.appendingPathComponent("damaged-\(tag)")
        try FileManager.default.copyItem(at: backup, to: copy)
        try damage(copy.appendingPathComponent(file))
        return copy
    }

    @Test("A backup missing any one of its LevelDB files restores every record or is refused")
    func missingFile() throws {
        let fixture = Fixture()
        let (backup, files) = try Self.backup(fixture)
        #expect(!files.isEmpty)
        for (tag, file) in files.enumerated() {
            let copy = try Self.damagedCopy(fixture, of: backup, file: file, tag: tag) {
                try FileManager.default.removeItem(at: $0)
            }
            let restored = try Self.restoredCount(fixture, copy, as: "r\(tag)")
            #expect(restored == nil || restored == Self.count, "without \(file): \(restored ?? -1) records restored")
        }
    }

    @Test("A backup with any one of its LevelDB files cut short restores every record or is refused")
    func truncatedFile() throws {
        let fixture = Fixture()
        let (backup, files) = try Self.backup(fixture)
        for (tag, file) in files.enumerated() {
            let copy = try Self.damagedCopy(fixture, of: backup, file: file, tag: tag) { url in
                let bytes = try Data(contentsOf: url)
                try bytes.prefix(bytes.count / 2).write(to: url)
            }
            let restored = try Self.restoredCount(fixture, copy, as: "r\(tag)")
            #expect(restored == nil || restored == Self.count, "\(file) cut short: \(restored ?? -1) records restored")
        }
    }

    @Test("A backup holds its records in table files, so no record depends on a log a recovery may cut short")
    func recordsAreInTables() throws {
        let fixture = Fixture()
        let (backup, files) = try Self.backup(fixture)
        for file in files where DatabaseFiles.kind(ofName: file) == .writeAheadLog {
            let size = try FileManager.default.attributesOfItem(atPath: backup.appendingPathComponent(file).path)[.size]
            #expect((size as? Int) == 0, "\(file) holds \(size ?? "?") bytes")
        }
    }
}
