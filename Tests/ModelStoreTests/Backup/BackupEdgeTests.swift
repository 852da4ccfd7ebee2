import Foundation
import Testing
@testable import ModelStore
import ModelStoreTestSupport

/// Backups at the edges: an empty database, and a destination folder removed while the backup
/// writes into it.
@Suite("Backup: edges")
struct BackupEdgeTests {
    @Test("An empty database backs up and restores to an empty database that opens")
    func emptyDatabase() throws {
        let fixture = Fixture()
        let store = try fixture.openQuietly("empty")
        let report = try store.backup(to: BackupTests.destination(fixture))
        try store.close()
        #expect(report.records >= 0)
        try ModelStore.restore(from: report.url, named: "restored", in: fixture.directory.url)
        let restored = try fixture.openQuietly("restored")
        defer { try? restored.close() }
        #expect(try restored.count() == 0)
        try restored.set(1, forKey: "one")
        #expect(try restored.object(Int.self, forKey: "one") == 1)
    }

    @Test("A destination folder removed while the backup writes into it: a typed error, nothing left behind, the store goes on")
    func destinationRemovedMidway() throws {
        let fixture = Fixture()
        let store = try fixture.openQuietly("source")
        defer { try? store.close() }
        let padding = String(repeating: "p", count: 400)
        for chunk in 0..<10 {
            try store.write { batch in
                for index in 0..<4_096 { try batch.set(padding, forKey: "k\(chunk)-\(index)") }
            }
        }
        let parent = fixture.directory.url.appendingPathComponent("backups-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
        var removed = false
        do {
            try store.backup(to: parent.appendingPathComponent("copy")) { _ in
                if !removed {
                    removed = true
                    try? FileManager.default.removeItem(at: parent)
                }
            }
            Issue.record("the backup succeeded into a removed folder")
        } catch is ModelStoreError {
            // Expected: the folder it was writing into is gone.
        }
        #expect(!FileManager.default.fileExists(atPath: parent.path))
        #expect(!fixture.directory.entries().contains { $0.hasPrefix(".modelstore-") })
        try store.set("after", forKey: "after")
        #expect(try store.count() == 10 * 4_096 + 1)
    }
}

/// A restore whose source is the very database it replaces.
@Suite("Restore: onto its own source")
struct RestoreOntoItselfTests {
    @Test("Restoring a database onto its own name while this process has it open: it is closed, and the name holds every record")
    func ontoItself() throws {
        let fixture = Fixture()
        let store = try fixture.openQuietly("db")
        try store.write { batch in
            for index in 0..<5_000 { try batch.set(User.sample("u\(index)"), forKey: "u\(index)") }
        }
        let source = fixture.directory.url.appendingPathComponent("db")
        #expect(errorCase { try ModelStore.restore(from: source, named: "db", in: fixture.directory.url) } == "alreadyExists")
        try ModelStore.restore(from: source, named: "db", in: fixture.directory.url, replacingExisting: true)
        #expect(errorCase { _ = try store.count() } == "closed")
        #expect(try RestoreTests.holds(fixture, "db", count: 5_000))
        #expect(!fixture.directory.entries().contains { $0.hasPrefix(".modelstore-") })
    }
}
