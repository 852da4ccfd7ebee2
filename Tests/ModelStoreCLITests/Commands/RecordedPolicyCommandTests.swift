import Foundation
import ModelStore
import Testing
import ModelStoreTestSupport

/// The tool's commands default to the policy a database records (the one its program last
/// opened it with), and `--policy` overrides it.
@Suite struct RecordedPolicyCommandTests {
    /// The part of `get --json` these tests read.
    private struct Record: Decodable {
        let key: String
        let storedAt: String
        let expiresAt: String?
        let expired: Bool
    }

    private func date(_ text: String?) throws -> Date {
        let text = try #require(text)
        return try #require(ISO8601DateFormatter().date(from: text))
    }

    @Test func getShowsTheExpiryOfTheRecordedPolicy() throws {
        let fixture = StoreFixture()
        try fixture.write(["book:1": Book.sample()], in: "books", policy: .low)

        let json = try ToolProcess.modelstore(["get", "books", "book:1", "--json"] + fixture.rootArguments)
        #expect(json.status == 0)
        let record = try json.decode(Record.self)
        let lifetime = try date(record.expiresAt).timeIntervalSince(try date(record.storedAt))
        #expect(abs(lifetime - 86_400) < 1)
        #expect(!record.expired)

        let text = try ToolProcess.modelstore(["get", "books", "book:1"] + fixture.rootArguments)
        #expect(!text.stdout.contains("expires at   never"))
        #expect(text.stdout.contains("policy       low (24 hours), recorded in the database"))
    }

    @Test func policyOptionOverridesTheRecordedPolicy() throws {
        let fixture = StoreFixture()
        try fixture.write(["book:1": Book.sample()], in: "books", storedAgo: 7_200, policy: .low)

        let json = try ToolProcess.modelstore(
            ["get", "books", "book:1", "--policy", "middle", "--json"] + fixture.rootArguments)
        let record = try json.decode(Record.self)
        #expect(abs(try date(record.expiresAt).timeIntervalSince(try date(record.storedAt)) - 3_600) < 1)
        #expect(record.expired)
        let text = try ToolProcess.modelstore(["get", "books", "book:1", "--policy", "never"] + fixture.rootArguments)
        #expect(text.stdout.contains("expires at   never"))
        #expect(text.stdout.contains("policy       never, given with --policy"))
    }

    /// `old` stored two hours ago and `new` just now, in a database last opened with `.middle`
    /// (one hour), and the same in its collection `c`.
    private func makeMiddleStore() throws -> StoreFixture {
        let fixture = StoreFixture()
        let old = try fixture.open("books", policy: .middle, storedAgo: 7_200)
        try old.set(Book.sample("old"), forKey: "old")
        try old.collection("c").set(Book.sample("old"), forKey: "old")
        try old.close()
        let new = try fixture.open("books", policy: .middle)
        try new.set(Book.sample("new"), forKey: "new")
        try new.collection("c").set(Book.sample("new"), forKey: "new")
        try new.close()
        return fixture
    }

    @Test func everyInspectionDefaultsToTheRecordedPolicy() throws {
        let fixture = try makeMiddleStore()
        let root = fixture.rootArguments

        #expect(try ToolProcess.modelstore(["keys", "books"] + root).lines == ["new"])
        #expect(try ToolProcess.modelstore(["keys", "books", "--collection", "c"] + root).lines == ["new"])
        #expect(try ToolProcess.modelstore(["keys", "books", "--include-expired"] + root).lines == ["new", "old"])

        let get = try ToolProcess.modelstore(["get", "books", "old", "--json"] + root).decode(Record.self)
        #expect(get.expired)

        let dump = try ToolProcess.modelstore(["dump", "books"] + root)
        let expired = try dump.lines.map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }.map { ($0["key"] as? String ?? "", $0["expired"] as? Bool ?? false) }
        #expect(expired.map(\.0) == ["new", "old"])
        #expect(expired.map(\.1) == [false, true])

        let stats = try #require(
            try ToolProcess.modelstore(["stats", "books", "--json"] + root).json() as? [String: Any])
        let records = try #require(stats["records"] as? [String: Any])
        #expect(records["total"] as? Int == 4)
        #expect(records["live"] as? Int == 2)
        #expect(records["expired"] as? Int == 2)
        #expect(stats["policy"] as? String == "middle (1 hour)")
        #expect(stats["policySource"] as? String == "recorded")

        let collections = try #require(
            try ToolProcess.modelstore(["collections", "books", "--json"] + root).json() as? [[String: Any]])
        #expect(collections.first?["records"] as? Int == 1)
        #expect(collections.first?["expired"] as? Int == 1)

        let list = try #require(try ToolProcess.modelstore(["list", "--json"] + root).json() as? [[String: Any]])
        #expect(list.first?["records"] as? Int == 4)
        #expect(list.first?["live"] as? Int == 2)
        #expect(list.first?["policy"] as? String == "middle (1 hour)")
    }

    @Test func listAndStatsCountTheSameRecordsAndStatsSaysWhat() throws {
        let fixture = StoreFixture()
        let store = try fixture.open("shop")
        for index in 0..<3 { try store.set(Book.sample(), forKey: "own\(index)") }
        for index in 0..<4 { try store.collection("users").set(Book.sample(), forKey: "u\(index)") }
        for index in 0..<3 { try store.collection("carts").set(Book.sample(), forKey: "c\(index)") }
        try store.close()
        let root = fixture.rootArguments

        let list = try #require(try ToolProcess.modelstore(["list", "--json"] + root).json() as? [[String: Any]])
        #expect(list.first?["records"] as? Int == 10)
        let stats = try #require(
            try ToolProcess.modelstore(["stats", "shop", "--json"] + root).json() as? [String: Any])
        #expect((stats["records"] as? [String: Any])?["total"] as? Int == 10)
        #expect(stats["counted"] as? String == "database")
        let spaces = try #require(stats["keySpaces"] as? [[String: Any]])
        #expect(spaces.map { $0["collection"] as? String } == [nil, "carts", "users"])
        #expect(spaces.map { $0["total"] as? Int } == [3, 3, 4])

        let text = try ToolProcess.modelstore(["stats", "shop"] + root)
        #expect(text.stdout.contains("records      10  (the whole database: its own keys and 2 collections)"))
        #expect(text.stdout.contains("  own keys   3"))
        #expect(text.stdout.contains("  carts      3"))
        #expect(text.stdout.contains("  users      4"))
        let one = try ToolProcess.modelstore(["stats", "shop", "--collection", "users"] + root)
        #expect(one.stdout.contains("records      4  (collection users only)"))
    }

    @Test func aDatabaseThatRecordsNoPolicyIsJudgedUnderNeverAndTheToolSaysToPassPolicy() throws {
        let fixture = StoreFixture()
        // Written by a release from before policy records, whose program used `.middle`.
        try fixture.writeWithoutRecordedPolicy(["old": Book.sample()], in: "books", storedAgo: 7_200, policy: .middle)
        let root = fixture.rootArguments
        let pass = "pass --policy"

        let get = try ToolProcess.modelstore(["get", "books", "old"] + root)
        #expect(get.stdout.contains("expires at   never"))
        #expect(get.stdout.contains("policy       never, assumed: the database records no policy"))
        #expect(get.stdout.contains(pass))
        let stats = try #require(
            try ToolProcess.modelstore(["stats", "books", "--json"] + root).json() as? [String: Any])
        #expect(stats["policySource"] as? String == "assumed")
        #expect(try ToolProcess.modelstore(["stats", "books"] + root).stdout.contains(pass))
        let keys = try ToolProcess.modelstore(["keys", "books"] + root)
        #expect(keys.lines == ["old"])
        #expect(keys.stderr.contains(pass))
        #expect(try ToolProcess.modelstore(["dump", "books"] + root).stderr.contains(pass))
        let list = try #require(try ToolProcess.modelstore(["list", "--json"] + root).json() as? [[String: Any]])
        #expect(list.first?["policySource"] as? String == "assumed")
        #expect(try ToolProcess.modelstore(["list"] + root).stdout.contains("not recorded (never assumed)"))

        // With the program's policy given, the tool judges as the program does.
        #expect(try ToolProcess.modelstore(["keys", "books", "--policy", "middle"] + root).lines.isEmpty)
        let judged = try ToolProcess.modelstore(["get", "books", "old", "--policy", "middle", "--json"] + root)
        #expect(try judged.decode(Record.self).expired)
        #expect(try ModelStore.recordedPolicy(ofDatabaseNamed: "books", in: fixture.root) == nil)
    }

    /// Inspections open databases under policies of their own choosing and never record one:
    /// the database keeps its program's.
    @Test func noCommandRecordsAPolicy() throws {
        let fixture = StoreFixture()
        let store = try fixture.open("books", policy: .low)
        try store.set(Book.sample(), forKey: "k")
        try store.collection("c", policy: .high).set(Book.sample(), forKey: "k")
        try store.close()
        try fixture.writeWithoutRecordedPolicy(["k": Book.sample()], in: "legacy")
        let root = fixture.rootArguments

        for name in ["books", "legacy"] {
            for policy in [[], ["--policy", "middle"], ["--policy", "never"]] {
                for command in [
                    ["stats", name], ["stats", name, "--collection", "c"], ["get", name, "k"],
                    ["keys", name], ["dump", name], ["collections", name],
                ] + (name == "books" ? [["get", name, "k", "--collection", "c"]] : []) {
                    let result = try ToolProcess.modelstore(command + policy + root)
                    #expect(result.status == 0, "\(command + policy): \(result.stderr)")
                }
            }
            for command in [["list"], ["keys", name, "--include-expired"], ["compact", name],
                ["sweep", name, "--policy", "middle"]] {
                let result = try ToolProcess.modelstore(command + root)
                #expect(result.status == 0, "\(command): \(result.stderr)")
            }
        }
        #expect(try ModelStore.recordedPolicy(ofDatabaseNamed: "books", in: fixture.root) == .low)
        #expect(try ModelStore.recordedPolicy(ofDatabaseNamed: "legacy", in: fixture.root) == nil)
        let reopened = try fixture.open("books", policy: .low)
        defer { try? reopened.close() }
        #expect(try reopened.collection("c").recordedPolicy() == .high)
    }

    @Test func aCollectionsOwnPolicyIsShownBesideTheDatabases() throws {
        let fixture = StoreFixture()
        let store = try fixture.open("shop", policy: .never)
        try store.collection("sessions", policy: .highest).set(Book.sample(), forKey: "s")
        try store.collection("forever", policy: .never).set(Book.sample(), forKey: "f")
        try store.collection("plain").set(Book.sample(), forKey: "p")
        try store.close()
        let root = fixture.rootArguments

        let get = try ToolProcess.modelstore(["get", "shop", "s", "--collection", "sessions"] + root)
        #expect(
            get.stdout.contains(
                "policy       never, recorded in the database; the collection's own: highest (10 seconds)"))
        let plain = try ToolProcess.modelstore(["get", "shop", "p", "--collection", "plain"] + root)
        #expect(plain.stdout.contains("policy       never, recorded in the database\n"))
        let rows = try #require(
            try ToolProcess.modelstore(["collections", "shop", "--json"] + root).json() as? [[String: Any]])
        #expect(rows.map { $0["name"] as? String } == ["forever", "plain", "sessions"])
        #expect(rows.map { $0["policy"] as? String } == ["never", nil, "highest (10 seconds)"])
        let stats = try #require(
            try ToolProcess.modelstore(["stats", "shop", "--json"] + root).json() as? [String: Any])
        let spaces = try #require(stats["keySpaces"] as? [[String: Any]])
        #expect(spaces.map { $0["policy"] as? String } == [nil, "never", nil, "highest (10 seconds)"])
    }
}
