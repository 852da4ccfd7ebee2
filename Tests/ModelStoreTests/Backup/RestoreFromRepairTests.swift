import Foundation
import Testing
@testable import ModelStore
import ModelStoreTestSupport

/// A restore may read a live database as its source. One whose repair was killed has files that
/// are half changed: only the repair's journal says what it holds. A restore must not install
/// those files as if they were the database.
@Suite("Restore: a source with an interrupted repair")
struct RestoreFromRepairTests {
    @Test("Restoring from a database whose repair was killed after LevelDB archived its log installs every record or is refused", .long)
    func sourceWithInterruptedRepair() throws {
        let fixture = Fixture()
        let pristine = try RepairCrashTests.makeDatabase(fixture, name: "pristine", tables: 3_000, log: 6_000, way: .named)
        let copy = SampleDatabase(copying: pristine, as: "copy")
        try FileDamage.copyDatabase(pristine.url, to: copy.url)
        let helper = try ChildProcess.testHelper(RepairCrashTests.repairArguments(fixture, "copy", .named) + ["watch-lost"])
        let lines = helper.finish()
        try #require(helper.process.terminationReason == .uncaughtSignal, "not killed: \(lines)")
        var restored: Int? = nil
        do {
            try ModelStore.restore(from: copy.url, named: "restored", in: fixture.directory.url)
            let store = try fixture.openQuietly("restored")
            restored = try store.count()
            try store.close()
        } catch let error as ModelStoreError {
            #expect(error.description.contains("repair"), "\(error)")
            #expect(!fixture.directory.entries().contains("restored"))
        }
        #expect(restored == nil || restored == 9_000, "restored \(restored ?? -1) of 9,000 records")
        // The source's own next open finishes its repair with every record.
        #expect(try copy.readAll(configuration: fixture.quietConfiguration) == [.exact: 9_000])
    }

    @Test("A source holding a repair's or a reset's journal is refused as corrupted, saying to finish it; nothing is installed", arguments: [RepairJournal.journalName, DatabaseResetter.journalName])
    func sourceWithJournal(journal: String) throws {
        let fixture = Fixture()
        let store = try fixture.openQuietly("source")
        try store.set(1, forKey: "one")
        try store.close()
        let source = fixture.directory.url.appendingPathComponent("source")
        try Data("interrupted\n".utf8).write(to: source.appendingPathComponent(journal))
        let before = FileHashes(of: source)
        #expect(throws: ModelStoreError.self) {
            try ModelStore.restore(from: source, named: "restored", in: fixture.directory.url)
        }
        #expect(!fixture.directory.entries().contains("restored"))
        #expect(!fixture.directory.entries().contains { $0.hasPrefix(".modelstore-") })
        #expect(FileHashes(of: source) == before)
        let message = errorCase { try ModelStore.restore(from: source, named: "restored", in: fixture.directory.url) }
        #expect(message == "corrupted")
    }
}
