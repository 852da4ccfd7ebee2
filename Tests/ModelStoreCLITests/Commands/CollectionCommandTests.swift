import Foundation
import ModelStore
import Testing
import ModelStoreTestSupport

/// `modelstore collections` and `--collection` on `keys`, `get`, `dump` and `stats`.
@Suite struct CollectionCommandTests {
    /// A database with its own keys and two collections sharing a key with them.
    private func makeStore() throws -> StoreFixture {
        let fixture = StoreFixture()
        let store = try fixture.open("shop")
        try store.set(Book.sample("own"), forKey: "k")
        try store.collection("users").set(Book.sample("in users"), forKey: "k")
        try store.collection("users").set(Book.sample("second"), forKey: "k2")
        try store.collection("a b").set(Book.sample("spaced"), forKey: "k")
        try store.close()
        return fixture
    }

    private struct Row: Decodable, Equatable {
        var name: String
        var records: Int
    }

    @Test func collectionsListsNamesWithCounts() throws {
        let fixture = try makeStore()
        let json = try ToolProcess.modelstore(["collections", "shop", "--json"] + fixture.rootArguments)
        #expect(json.status == 0)
        #expect(try json.decode([Row].self) == [Row(name: "a b", records: 1), Row(name: "users", records: 2)])
        let text = try ToolProcess.modelstore(["collections", "shop"] + fixture.rootArguments)
        #expect(
            text.lines == [
                "COLLECTION  RECORDS  EXPIRED  OWN POLICY",
                "a b               1        0  -",
                "users             2        0  -",
                "RECORDS are live under policy never, recorded in the database.",
            ])
    }

    @Test func keysInACollectionListOnlyItsKeys() throws {
        let fixture = try makeStore()
        let inUsers = try ToolProcess.modelstore(["keys", "shop", "--collection", "users"] + fixture.rootArguments)
        #expect(inUsers.lines == ["k", "k2"])
        let own = try ToolProcess.modelstore(["keys", "shop"] + fixture.rootArguments)
        #expect(own.lines == ["k"])  // default output unchanged: no collection's keys
    }

    @Test func getInACollectionReadsItsRecord() throws {
        let fixture = try makeStore()
        let result = try ToolProcess.modelstore(
            ["get", "shop", "k", "--collection", "a b"] + fixture.rootArguments)
        #expect(result.status == 0)
        #expect(result.stdout.contains("collection   a b"))
        #expect(result.stdout.contains("\"title\" : \"spaced\""))
        let own = try ToolProcess.modelstore(["get", "shop", "k"] + fixture.rootArguments)
        #expect(own.stdout.contains("\"title\" : \"own\""))
        #expect(!own.stdout.contains("collection"))
        let missing = try ToolProcess.modelstore(
            ["get", "shop", "k2", "--collection", "a b"] + fixture.rootArguments)
        #expect(missing.status == 3)
        #expect(missing.stderr.contains("collection \"a b\""))
    }

    @Test func dumpInACollectionDumpsOnlyIt() throws {
        let fixture = try makeStore()
        let result = try ToolProcess.modelstore(["dump", "shop", "--collection", "users"] + fixture.rootArguments)
        #expect(result.status == 0)
        #expect(result.lines.count == 2)
        #expect(result.stdout.contains("in users") && result.stdout.contains("second"))
        let own = try ToolProcess.modelstore(["dump", "shop"] + fixture.rootArguments)
        #expect(own.lines.count == 1)
    }

    @Test func statsInACollectionCountsItsRecords() throws {
        let fixture = try makeStore()
        struct Stats: Decodable {
            struct Records: Decodable { var total: Int }
            var collection: String?
            var records: Records
        }
        let users = try ToolProcess.modelstore(
            ["stats", "shop", "--collection", "users", "--json"] + fixture.rootArguments)
        #expect(try users.decode(Stats.self).records.total == 2)
        #expect(try users.decode(Stats.self).collection == "users")
        // Without --collection, the whole database: its own key and the three in collections.
        let whole = try ToolProcess.modelstore(["stats", "shop", "--json"] + fixture.rootArguments)
        #expect(try whole.decode(Stats.self).records.total == 4)
        #expect(try whole.decode(Stats.self).collection == nil)
    }

    /// What `stats --collection` counts as live.
    private func liveRecords(in collection: String, of fixture: StoreFixture, options: [String]) throws -> Int {
        struct Stats: Decodable {
            struct Records: Decodable { var live: Int }
            var records: Records
        }
        let result = try ToolProcess.modelstore(
            ["stats", "shop", "--collection", collection, "--json"] + options + fixture.rootArguments)
        return try result.decode(Stats.self).records.live
    }

    /// `collections` and `stats --collection` count one way: live records under the policy
    /// (`--policy`, else the recorded one), expired records by their own deadline too.
    @Test func collectionsCountsFreshRecordsTheWayStatsDoes() throws {
        let fixture = StoreFixture()
        let old = try fixture.open("shop", policy: .never, storedAgo: 7_200)
        try old.collection("users").set(Book.sample(), forKey: "old")
        try old.collection("sessions", policy: .highest).set(Book.sample(), forKey: "gone")  // own deadline, passed
        try old.close()
        let new = try fixture.open("shop", policy: .never)
        try new.collection("users").set(Book.sample(), forKey: "new")
        try new.close()

        for policy in [[], ["--policy", "middle"]] {
            let rows = try ToolProcess.modelstore(["collections", "shop", "--json"] + policy + fixture.rootArguments)
                .decode([Row].self)
            #expect(rows.map(\.name) == ["sessions", "users"])
            for row in rows {
                let live = try liveRecords(in: row.name, of: fixture, options: policy)
                #expect(row.records == live, "\(row.name) \(policy)")
            }
        }
        let fresh = try ToolProcess.modelstore(["collections", "shop", "--json"] + fixture.rootArguments)
        #expect(try fresh.decode([Row].self).map(\.records) == [0, 2])  // never: only `gone` expired
        let middle = try ToolProcess.modelstore(
            ["collections", "shop", "--policy", "middle", "--json"] + fixture.rootArguments)
        #expect(try middle.decode([Row].self).map(\.records) == [0, 1])
    }

    @Test func invalidCollectionNameIsAUsageError() throws {
        let fixture = try makeStore()
        let result = try ToolProcess.modelstore(
            ["keys", "shop", "--collection", String(repeating: "n", count: 256)] + fixture.rootArguments)
        #expect(result.status == 2)
        #expect(result.stderr.contains("1 to 255 UTF-8 bytes"))
    }
}

/// `list` and `sweep` speak of the whole database, collections included.
@Suite struct CollectionCountTests {
    @Test func listCountsTheRecordsOfEveryCollection() throws {
        let fixture = StoreFixture()
        let store = try fixture.open("shop")
        try store.set(Book.sample(), forKey: "k")
        try store.collection("users").set(Book.sample(), forKey: "k")
        try store.close()
        struct Row: Decodable { var name: String; var records: Int }
        let result = try ToolProcess.modelstore(["list", "--json"] + fixture.rootArguments)
        #expect(try result.decode([Row].self).first { $0.name == "shop" }?.records == 2)
    }
}
