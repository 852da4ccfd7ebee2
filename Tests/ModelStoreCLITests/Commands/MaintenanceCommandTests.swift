import Foundation
import ModelStore
import Testing
import ModelStoreTestSupport

/// `modelstore sweep` and `modelstore compact`.
@Suite struct MaintenanceCommandTests {
    @Test func sweepRemovesRecordsExpiredUnderThePolicy() throws {
        let fixture = StoreFixture()
        try fixture.write(["old:1": Book.sample(), "old:2": Book.sample()], in: "books", storedAgo: 7_200)
        try fixture.write(["new:1": Book.sample()], in: "books")

        let result = try ToolProcess.modelstore(["sweep", "books", "--policy", "middle"] + fixture.rootArguments)
        #expect(result.status == 0)
        #expect(result.stdout.contains("Removed 2 expired records from books"))
        #expect(result.stdout.contains("1 record remain"))

        let store = try fixture.open("books")
        defer { try? store.close() }
        #expect(try store.keys().collect() == ["new:1"])
    }

    @Test func sweepAcceptsSecondsAsAPolicy() throws {
        let fixture = StoreFixture()
        try fixture.write(["old": Book.sample()], in: "books", storedAgo: 120)
        let result = try ToolProcess.modelstore(["sweep", "books", "--policy", "90"] + fixture.rootArguments)
        #expect(result.status == 0)
        #expect(result.stdout.contains("Removed 1 expired record from books"))
    }

    @Test func sweepNeedsAValidPolicy() throws {
        let fixture = StoreFixture()
        try fixture.write(["a": Book.sample()], in: "books")
        #expect(try ToolProcess.modelstore(["sweep", "books"] + fixture.rootArguments).status == 2)
        let zero = try ToolProcess.modelstore(["sweep", "books", "--policy", "0"] + fixture.rootArguments)
        #expect(zero.status == 2)
        #expect(zero.stderr.contains("--policy"))
        #expect(
            try ToolProcess.modelstore(["sweep", "books", "--policy", "sometimes"] + fixture.rootArguments).status == 2)
    }

    @Test func sweepOfAMissingDatabaseExitsWithNotFound() throws {
        let fixture = StoreFixture()
        let result = try ToolProcess.modelstore(["sweep", "ghost", "--policy", "low"] + fixture.rootArguments)
        #expect(result.status == 3)
        #expect(!fixture.contains("ghost"))
    }

    @Test func compactKeepsTheRecordsAndReportsSizes() throws {
        let fixture = StoreFixture()
        try fixture.write(Dictionary(uniqueKeysWithValues: (1...100).map { ("k\($0)", Book.sample()) }), in: "books")
        let result = try ToolProcess.modelstore(["compact", "books"] + fixture.rootArguments)
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("Compacted books in "))
        #expect(result.stdout.contains("on disk"))

        let store = try fixture.open("books")
        defer { try? store.close() }
        #expect(try store.count() == 100)
    }

    @Test func compactOfADatabaseOpenElsewhereExitsWithLocked() throws {
        let fixture = StoreFixture()
        try fixture.write(["a": Book.sample()], in: "books")
        let holder = try fixture.open("books")
        defer { try? holder.close() }
        #expect(try ToolProcess.modelstore(["compact", "books"] + fixture.rootArguments).status == 4)
    }
}
