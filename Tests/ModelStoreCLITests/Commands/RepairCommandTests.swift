import Foundation
import ModelStore
import Testing
import ModelStoreTestSupport

/// `modelstore repair`.
@Suite struct RepairCommandTests {
    @Test func repairKeepsTheRecordsAndPrintsTheReport() throws {
        let fixture = StoreFixture()
        try fixture.write(Dictionary(uniqueKeysWithValues: (1...50).map { ("k\($0)", Book.sample()) }), in: "books")
        let result = try ToolProcess.modelstore(["repair", "books"] + fixture.rootArguments)
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("Repaired "))
        #expect(result.stdout.contains("records readable: 50"))

        let store = try fixture.open("books")
        defer { try? store.close() }
        #expect(try store.count() == 50)
    }

    @Test func repairOfAHealthyDatabaseSaysNothingWasLost() throws {
        let fixture = StoreFixture()
        try fixture.write(Dictionary(uniqueKeysWithValues: (1...50).map { ("k\($0)", Book.sample()) }), in: "books")
        let result = try ToolProcess.modelstore(["repair", "books"] + fixture.rootArguments)
        #expect(result.status == 0)
        #expect(!result.stdout.contains("Some data may have been lost"))
        #expect(result.stdout.contains("Nothing was lost"))
    }

    @Test func repairOfAMissingDatabaseExitsWithNotFoundAndCreatesNothing() throws {
        let fixture = StoreFixture()
        let result = try ToolProcess.modelstore(["repair", "ghost"] + fixture.rootArguments)
        #expect(result.status == 3)
        #expect(!fixture.contains("ghost"))
    }
}
