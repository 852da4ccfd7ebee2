import Foundation
import Testing
@testable import ModelStore
import ModelStoreTestSupport

/// What a backup's and a restore's reports count: records as every other count does, ModelStore's
/// own entries apart, and an estimate of the total that a progress bar can divide by.
@Suite("Backup counts")
struct BackupCountTests {
    /// A database of 120 records in the store's own keys, 80 in an indexed collection, some tagged,
    /// with its policy recorded: ModelStore's own entries beside 200 records.
    static func makeStore(_ fixture: Fixture) throws -> ModelStore {
        let store = try fixture.openQuietly("db", policy: .low)
        try store.write { batch in
            for index in 0..<120 { try batch.set(User.sample("u\(index)"), forKey: "u\(index)") }
        }
        try store.set(User.sample("t"), forKey: "u0", tags: ["team"])
        let books = store.collection("books")
        try books.defineIndex("byPrice", of: Book.self, version: 1) { [.double($0.price)] }
        for index in 0..<80 { try books.set(Book(name: "b\(index)", price: Double(index)), forKey: "b\(index)") }
        return store
    }

    @Test("A backup's and a restore's reports count the records alone, and ModelStore's own entries apart")
    func reportsCountRecordsAsEveryOtherCountDoes() throws {
        let fixture = Fixture()
        let store = try Self.makeStore(fixture)
        defer { try? store.close() }
        let expected = try store.count() + store.collection("books").count()
        #expect(expected == 200)

        var progress: [BackupProgress] = []
        let backup = try store.backup(to: BackupTests.destination(fixture)) { progress.append($0) }
        #expect(backup.records == expected)
        // The recorded policy, the tag entry, the index's definition, its 80 entries and its id floor.
        #expect(backup.systemEntries >= 83)
        #expect(progress.last?.records == backup.records)
        #expect(progress.last?.systemEntries == backup.systemEntries)
        #expect(backup.description.hasPrefix("200 records and \(backup.systemEntries) entries of ModelStore's own, "))

        let restored = try ModelStore.restore(from: backup.url, named: "restored", in: fixture.directory.url)
        #expect(restored.records == expected)
        #expect(restored.systemEntries == backup.systemEntries)
        #expect(restored.bytes == backup.bytes)
    }

    @Test("With every record still in the write buffer, a backup's estimate of the total is nil, not 0")
    func estimateIsNilWhenLevelDBCannotEstimate() throws {
        let fixture = Fixture()
        let store = try fixture.openQuietly()
        defer { try? store.close() }
        try store.write { batch in for index in 0..<100 { try batch.set(index, forKey: "k\(index)") } }
        #expect(try store.approximateSize() == 0)  // nothing flushed to a table yet
        var progress: [BackupProgress] = []
        try store.backup(to: BackupTests.destination(fixture)) { progress.append($0) }
        #expect(!progress.isEmpty)
        #expect(progress.allSatisfy { $0.estimatedTotalBytes == nil })
    }

    @Test("An estimate smaller than what is copied (compressed tables) is raised to the bytes copied")
    func estimateIsNeverBelowTheBytesCopied() throws {
        let fixture = Fixture()
        var configuration = fixture.quietConfiguration
        configuration.usesSnappyCompression = true
        let store = try ModelStore(name: "db", policy: .never, configuration: configuration)
        defer { try? store.close() }
        let padding = String(repeating: "a", count: 2_000)  // compresses to a few bytes
        try store.write { batch in for index in 0..<5_000 { try batch.set(padding, forKey: "k\(index)") } }
        try store.compact()
        let size = try store.approximateSize()
        var progress: [BackupProgress] = []
        let report = try store.backup(to: BackupTests.destination(fixture)) { progress.append($0) }
        #expect(size > 0 && size < report.bytes)  // the situation under test
        #expect(progress.allSatisfy { ($0.estimatedTotalBytes ?? 0) >= $0.bytes })

        var restoring: [BackupProgress] = []
        try ModelStore.restore(from: report.url, named: "restored", in: fixture.directory.url) { restoring.append($0) }
        #expect(restoring.allSatisfy { ($0.estimatedTotalBytes ?? 0) >= $0.bytes })
    }
}
