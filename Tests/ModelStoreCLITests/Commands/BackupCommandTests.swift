import Foundation
import Testing
import ModelStore
import ModelStoreTestSupport

/// `modelstore backup` and `restore` report the records `list` counts, and ModelStore's own
/// entries apart.
@Suite struct BackupCommandTests {
    @Test func backupAndRestoreCountTheRecordsListCounts() throws {
        let fixture = StoreFixture()
        let store = try fixture.open("db", policy: .low)
        for index in 0..<50 { try store.set(Book.sample("own \(index)"), forKey: "own:\(index)") }
        let books = store.collection("books")
        try books.defineIndex("byTitle", of: Book.self, version: 1) { [.string($0.title)] }
        for index in 0..<100 { try books.set(Book.sample("b\(index)"), forKey: "b\(index)") }
        try store.close()

        struct Row: Decodable { let name: String; let records: Int? }
        let listed = try ToolProcess.modelstore(["list", "--json"] + fixture.rootArguments).decode([Row].self)
        #expect(listed.first?.records == 150)

        let destination = fixture.root.deletingLastPathComponent().appendingPathComponent(UUID().uuidString + "/copy")
        let backup = try ToolProcess.modelstore(["backup", "db", destination.path] + fixture.rootArguments)
        #expect(backup.status == 0, "\(backup.stderr)")
        #expect(backup.stdout.hasPrefix("Backed up db: 150 records and "), "\(backup.stdout)")
        let restore = try ToolProcess.modelstore(["restore", destination.path, "again"] + fixture.rootArguments)
        #expect(restore.stdout.hasPrefix("Restored again: 150 records and "), "\(restore.stdout)")
    }
}
