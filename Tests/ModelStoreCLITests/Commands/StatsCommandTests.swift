import Foundation
import ModelStore
import Testing
import ModelStoreTestSupport

/// `modelstore stats`.
@Suite struct StatsCommandTests {
    /// The part of `stats --json` the tests check.
    struct Report: Decodable {
        /// `records`.
        struct Records: Decodable {
            let total: Int
            let live: Int
            let expired: Int
        }

        /// `sizes`.
        struct Sizes: Decodable {
            let approximate: UInt64
            let onDisk: UInt64
            let files: Int
        }

        let name: String
        let policy: String
        let records: Records
        let sizes: Sizes
        let leveldbStats: String
    }

    /// Two records stored two hours ago and one just now.
    private func makeStore() throws -> StoreFixture {
        let fixture = StoreFixture()
        try fixture.write(["old:1": Book.sample(), "old:2": Book.sample()], in: "books", storedAgo: 7_200)
        try fixture.write(["new:1": Book.sample()], in: "books")
        return fixture
    }

    @Test func countsLiveAndExpiredRecordsUnderThePolicyGiven() throws {
        let fixture = try makeStore()

        let hourly = try ToolProcess.modelstore(
            ["stats", "books", "--policy", "middle", "--json"] + fixture.rootArguments)
        #expect(hourly.status == 0)
        let report = try hourly.decode(Report.self)
        #expect(report.name == "books")
        #expect(report.policy == "middle (1 hour)")
        #expect((report.records.total, report.records.live, report.records.expired) == (3, 1, 2))
        #expect(report.sizes.onDisk > 0 && report.sizes.files > 0)
        #expect(report.leveldbStats.contains("Level"))

        let never = try ToolProcess.modelstore(["stats", "books", "--json"] + fixture.rootArguments).decode(Report.self)
        #expect((never.records.live, never.records.expired) == (3, 0))

        // Counting expired records must not remove them.
        let again = try ToolProcess.modelstore(["stats", "books", "--policy", "60", "--json"] + fixture.rootArguments)
        #expect(try again.decode(Report.self).records.total == 3)
    }

    @Test func plainOutputShowsCountsSizesAndLevelDBStatistics() throws {
        let fixture = try makeStore()
        let result = try ToolProcess.modelstore(["stats", "books", "--policy", "middle"] + fixture.rootArguments)
        #expect(result.status == 0)
        #expect(result.stdout.contains("records      3"))
        #expect(result.stdout.contains("live       1"))
        #expect(result.stdout.contains("expired    2"))
        #expect(result.stdout.contains("on disk"))
        #expect(result.stdout.contains("LevelDB statistics:"))
    }

    @Test func statsSaysWhichPolicyItAssumedForExpired() throws {
        let fixture = try makeStore()
        // The fixture's program opened the database with `.never`, which it records.
        let text = try ToolProcess.modelstore(["stats", "books"] + fixture.rootArguments)
        #expect(text.stdout.contains("expired    0  (under policy never, recorded in the database)"))
        let recorded = try ToolProcess.modelstore(["stats", "books", "--json"] + fixture.rootArguments)
        let document = try #require(try recorded.json() as? [String: Any])
        #expect(document["policy"] as? String == "never")
        #expect(document["policyIsDefault"] as? Bool == true)
        #expect(document["policySource"] as? String == "recorded")
        let chosen = try ToolProcess.modelstore(
            ["stats", "books", "--policy", "middle", "--json"] + fixture.rootArguments)
        let chosenDocument = try #require(try chosen.json() as? [String: Any])
        #expect(chosenDocument["policyIsDefault"] as? Bool == false)
        #expect(chosenDocument["policySource"] as? String == "option")
        let chosenText = try ToolProcess.modelstore(["stats", "books", "--policy", "middle"] + fixture.rootArguments)
        #expect(chosenText.stdout.contains("expired    2  (under policy middle (1 hour), given with --policy)"))
    }

    @Test func statsOfAMissingDatabaseExitsWithNotFoundAndCreatesNothing() throws {
        let fixture = StoreFixture()
        let result = try ToolProcess.modelstore(["stats", "ghost"] + fixture.rootArguments)
        #expect(result.status == 3)
        #expect(result.stderr.contains("no database named \"ghost\" under \(fixture.root.path)"))
        #expect(!fixture.contains("ghost"))
    }

    @Test func databaseOpenInAnotherProcessIsReadFromAPrivateCopyAndTheNoteSaysSo() throws {
        let fixture = try makeStore()
        let holder = try fixture.open("books")
        defer { try? holder.close() }
        let result = try ToolProcess.modelstore(["stats", "books"] + fixture.rootArguments)
        #expect(result.status == 0)
        #expect(result.stderr.contains("books is open in another process"), "\(result.stderr)")
        #expect(result.stdout.contains("path         \(fixture.root.path)/books"), "\(result.stdout)")
        #expect(!result.stdout.contains(".modelstore-inspect-"))
        #expect(!FileManager.default.fileExists(atPath: fixture.root.path + "/.modelstore-inspect-"))
    }
}

/// `modelstore stats` on a database whose program set limits.
@Suite struct StatsLimitsTests {
    struct Report: Decodable {
        struct Limits: Decodable {
            let maximumTotalBytes: Int?
            let maximumRecordCount: Int?
            let eviction: String?
            let recordBytes: Int
            let recordCount: Int
        }

        let limits: Limits
    }

    @Test("stats shows the limits the program recorded, the eviction policy and how close the database is")
    func showsTheRecordedLimits() throws {
        let fixture = StoreFixture()
        var configuration = fixture.configuration()
        configuration.maximumRecordCount = 10
        configuration.maximumTotalBytes = 1 << 20
        configuration.eviction = .oldestWritten
        do {
            let store = try ModelStore(name: "books", policy: .never, configuration: configuration)
            for index in 0..<4 { try store.set(Book.sample(), forKey: "b\(index)") }
            try store.close()
        }
        let result = try ToolProcess.modelstore(["stats", "books", "--json"] + fixture.rootArguments)
        #expect(result.status == 0)
        let limits = try result.decode(Report.self).limits
        #expect(limits.maximumRecordCount == 10)
        #expect(limits.maximumTotalBytes == 1 << 20)
        #expect(limits.eviction == "oldestWritten")
        #expect(limits.recordCount == 4)
        #expect(limits.recordBytes > 4 * 20)
        let text = try ToolProcess.modelstore(["stats", "books"] + fixture.rootArguments)
        #expect(text.stdout.contains("eviction oldestWritten"))
        #expect(text.stdout.contains("4 of 10  (40 %)"))
    }

    @Test("stats on a database without limits says none are recorded")
    func noLimits() throws {
        let fixture = StoreFixture()
        try fixture.write(["b": Book.sample()], in: "books")
        let result = try ToolProcess.modelstore(["stats", "books", "--json"] + fixture.rootArguments)
        let limits = try result.decode(Report.self).limits
        #expect(limits.eviction == nil && limits.maximumRecordCount == nil && limits.recordCount == 1)
    }
}
