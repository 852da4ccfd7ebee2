import Foundation
import ModelStore
import Testing
import ModelStoreTestSupport

/// `modelstore remove NAME KEY [--collection C]`: removes one record, nothing else.
@Suite struct RemoveCommandTests {
    @Test func removeDeletesOneRecordAndKeepsTheRest() throws {
        let fixture = StoreFixture()
        try fixture.write(["a": Book.sample("A"), "b": Book.sample("B")], in: "books")
        let result = try ToolProcess.modelstore(["remove", "books", "a"] + fixture.rootArguments)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("Removed the record for key \"a\" from database \"books\""))

        let store = try fixture.open("books")
        defer { try? store.close() }
        #expect(try store.keys().collect() == ["b"])
    }

    @Test func removeInACollectionLeavesTheSameKeyOutsideIt() throws {
        let fixture = StoreFixture()
        let store = try fixture.open("books")
        try store.set(Book.sample("own"), forKey: "k")
        try store.collection("shelf").set(Book.sample("shelved"), forKey: "k")
        try store.close()

        let result = try ToolProcess.modelstore(
            ["remove", "books", "k", "--collection", "shelf"] + fixture.rootArguments)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("collection \"shelf\""))
        let reopened = try fixture.open("books")
        defer { try? reopened.close() }
        #expect(try reopened.collection("shelf").count() == 0)
        #expect(try reopened.object(Book.self, forKey: "k")?.title == "own")
    }

    @Test func removeOfAMissingKeyExitsWithNotFoundAndAdvisesKeys() throws {
        let fixture = StoreFixture()
        try fixture.write(["a": Book.sample()], in: "books")
        let result = try ToolProcess.modelstore(["remove", "books", "nope"] + fixture.rootArguments)
        #expect(result.status == 3)
        #expect(result.stderr.contains("no record with key \"nope\""))
        let keys = try AdviceRunner.run(try AdviceRunner.command("keys", in: result.stderr))
        #expect(keys.status == 0)
        #expect(keys.lines == ["a"])
    }

    @Test func removeOfAMissingDatabaseCreatesNothing() throws {
        let fixture = StoreFixture()
        let result = try ToolProcess.modelstore(["remove", "ghost", "a"] + fixture.rootArguments)
        #expect(result.status == 3)
        #expect(!fixture.contains("ghost"))
    }

    @Test func removeOfADatabaseOpenElsewhereExitsWithLockedAndRemovesNothing() throws {
        let fixture = StoreFixture()
        try fixture.write(["a": Book.sample()], in: "books")
        let holder = try fixture.open("books")
        defer { try? holder.close() }
        let result = try ToolProcess.modelstore(["remove", "books", "a"] + fixture.rootArguments)
        #expect(result.status == 4)
        #expect(try holder.contains("a"))
    }
}
