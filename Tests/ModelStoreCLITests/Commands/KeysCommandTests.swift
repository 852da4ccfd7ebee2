import Foundation
import Testing
import ModelStoreTestSupport

/// `modelstore keys`.
@Suite struct KeysCommandTests {
    private func makeStore() throws -> StoreFixture {
        let fixture = StoreFixture()
        try fixture.write(
            ["a:1": Book.sample(), "a:2": Book.sample(), "b:1": Book.sample()], in: "books", storedAgo: 7_200)
        try fixture.write(["a:3": Book.sample()], in: "books")
        return fixture
    }

    @Test func listsEveryKeyInOrder() throws {
        let fixture = try makeStore()
        let result = try ToolProcess.modelstore(["keys", "books"] + fixture.rootArguments)
        #expect(result.status == 0)
        #expect(result.lines == ["a:1", "a:2", "a:3", "b:1"])
    }

    @Test func prefixReverseAndLimitNarrowTheListing() throws {
        let fixture = try makeStore()
        let result = try ToolProcess.modelstore(
            ["keys", "books", "--prefix", "a:", "--reverse", "--limit", "2"] + fixture.rootArguments)
        #expect(result.status == 0)
        #expect(result.lines == ["a:3", "a:2"])
    }

    @Test func jsonOutputIsAnArrayOfKeys() throws {
        let fixture = try makeStore()
        let result = try ToolProcess.modelstore(["keys", "books", "--json", "--prefix", "b"] + fixture.rootArguments)
        #expect(result.status == 0)
        #expect(try result.decode([String].self) == ["b:1"])
        let all = try ToolProcess.modelstore(["keys", "books", "--json"] + fixture.rootArguments)
        #expect(try all.decode([String].self) == ["a:1", "a:2", "a:3", "b:1"])
        let none = try ToolProcess.modelstore(["keys", "books", "--json", "--prefix", "z"] + fixture.rootArguments)
        #expect(try none.decode([String].self) == [])
    }

    @Test func policyHidesExpiredKeysWithoutRemovingThem() throws {
        let fixture = try makeStore()
        let fresh = try ToolProcess.modelstore(["keys", "books", "--policy", "middle"] + fixture.rootArguments)
        #expect(fresh.lines == ["a:3"])
        let all = try ToolProcess.modelstore(["keys", "books"] + fixture.rootArguments)
        #expect(all.lines.count == 4)
    }

    @Test func negativeLimitIsAUsageError() throws {
        let fixture = try makeStore()
        let result = try ToolProcess.modelstore(["keys", "books", "--limit", "-1"] + fixture.rootArguments)
        #expect(result.status == 2)
    }
}
