import Foundation
import Testing
@testable import ModelStore
import ModelStoreTestSupport

/// A `.never` collection's records say they never expire (issue 23, item 9): nil `expiresAt`,
/// a flag in the envelope rather than a deadline 2,000 years away, honoured by every store
/// whatever its policy; records earlier releases stamped with that far deadline read the same.
@Suite("Collections: records that never expire")
struct NeverExpiringCollectionTests {
    /// The flags byte of the record for `key` in `collection`.
    static func flags(_ store: ModelStore, _ key: String, in collection: String) throws -> UInt8 {
        try #require(try rawRecord(store, key, in: collection))[1]
    }

    /// Whether the record carries the "never expires" flag and no deadline.
    static func isFlaggedNever(_ store: ModelStore, _ key: String, in collection: String) throws -> Bool {
        let flags = try flags(store, key, in: collection)
        return flags & RecordHeader.neverExpiresFlag != 0 && flags & RecordHeader.hasDeadlineFlag == 0
    }

    @Test("Every write into a .never collection stores a record that says it never expires: nil expiresAt")
    func everyWriteSaysNever() async throws {
        let fixture = Fixture()
        let store = try fixture.open(policy: .highest)
        let forever = store.collection("forever", policy: .never)
        try forever.set(User.sample("set"), forKey: "set")
        try forever.set(User.sample("meta"), forKey: "meta", metadata: "etag")
        try forever.set(User.sample("typed"), forKey: "typed", metadata: Optional(["etag": "x"]))
        try forever.set(User.sample("tagged"), forKey: "tagged", tags: ["t"])
        try store.write { batch in
            try batch.set(User.sample("batch"), forKey: "batch", in: forever)
            try batch.set(User.sample("batchMeta"), forKey: "batchMeta", in: forever, metadata: "etag")
            try batch.set(User.sample("batchTagged"), forKey: "batchTagged", in: forever, tags: ["t"])
        }
        try await forever.importObjects([User.sample("import")], key: { $0.userName })
        _ = try await forever.object(User.self, forKey: "readThrough") { User.sample("readThrough") }
        _ = try await forever.object(User.self, forKey: "options", options: ReadThroughOptions()) { _ in
            .value(User.sample("options"))
        }
        let keys = ["set", "meta", "typed", "tagged", "batch", "batchMeta", "batchTagged", "import", "readThrough",
                    "options"]
        for key in keys {
            #expect(try Self.isFlaggedNever(store, key, in: "forever"), "\(key)")
            let entry = try #require(try forever.entry(User.self, forKey: key), "\(key)")
            #expect(entry.expiresAt == nil, "\(key)")
            #expect(!entry.isExpired, "\(key)")
        }
        // A lifetime of the record's own still wins over the collection's policy.
        try forever.set(User.sample(), forKey: "own", expiresAfter: 60)
        #expect(try forever.entry(User.self, forKey: "own")?.expiresAt == fixture.clock.now.addingTimeInterval(60))
        // 3,000 years later, under a store whose policy is 10 seconds, and its sweep: all still there.
        fixture.clock.advance(by: 3_000 * 365 * 86_400)
        #expect(try forever.count() == keys.count)
        #expect(try forever.keys().collect().sorted() == keys.sorted())
        #expect(try store.removeExpiredObjects() == 1)  // only "own"
        #expect(try store.collection("forever").object(User.self, forKey: "set") == User.sample("set"))
        #expect(try forever.contains("readThrough"))
    }

    @Test("refresh, replaceMetadata and a read-through's notModified keep a record never expiring")
    func rewritesKeepNever() async throws {
        let fixture = Fixture()
        let store = try fixture.open(policy: .highest)
        let forever = store.collection("forever", policy: .never)
        try forever.set(User.sample(), forKey: "u", metadata: "etag-1")
        fixture.clock.advance(by: 100)
        #expect(try forever.refresh(forKey: "u"))
        #expect(try Self.isFlaggedNever(store, "u", in: "forever"))
        #expect(try forever.replaceMetadata("etag-2", forKey: "u"))
        #expect(try Self.isFlaggedNever(store, "u", in: "forever"))
        #expect(try forever.entry(User.self, forKey: "u")?.expiresAt == nil)
        #expect(try forever.metadata(String.self, forKey: "u") == "etag-2")
        // A read-through that revalidates an expired record (`.notModified`) restarts it with the
        // collection's policy: never.
        try forever.set(User.sample("short"), forKey: "short", expiresAfter: 10)
        fixture.clock.advance(by: 20)
        let revalidated = try await forever.object(User.self, forKey: "short", options: ReadThroughOptions()) { _ in
            .notModified()
        }
        #expect(revalidated == User.sample("short"))
        #expect(try Self.isFlaggedNever(store, "short", in: "forever"))
        #expect(try forever.entry(User.self, forKey: "short")?.expiresAt == nil)
        // An explicit lifetime replaces "never".
        #expect(try forever.refresh(forKey: "u", expiresAfter: 30))
        let flags = try Self.flags(store, "u", in: "forever")
        #expect(flags & RecordHeader.neverExpiresFlag == 0 && flags & RecordHeader.hasDeadlineFlag != 0)
        #expect(try forever.entry(User.self, forKey: "u")?.expiresAt == fixture.clock.now.addingTimeInterval(30))
    }

    @Test("Records earlier releases stamped with the far deadline read as never expiring, and keep it when rewritten")
    func farDeadlineOfEarlierReleases() throws {
        let fixture = Fixture()
        let store = try fixture.open(policy: .highest)
        let storedAt = fixture.clock.now.timeIntervalSinceReferenceDate
        let far = storedAt + RecordHeader.neverLifetime  // what a `.never` collection wrote before format 3
        try putRawRecord(store, "two", in: "forever", try RecordFormatThreeTests.versionTwoRecord(
            User.sample("two"), key: "two", in: "forever", storedAt: storedAt, expiresAt: far, metadata: "etag"))
        try putRawRecord(store, "refreshed", in: "forever", try RecordFormatThreeTests.versionTwoRecord(
            User.sample("refreshed"), key: "refreshed", in: "forever", storedAt: storedAt,
            expiresAt: storedAt + 12_345.678 + (far - storedAt) - 12_345.678))  // a refresh's rounding
        var one: [UInt8] = []
        RecordHeader(storedAt: storedAt, expiresAt: far, codec: .json).writeVersionOne(to: &one)
        one += Array(try JSONEncoder().encode(User.sample("one")))
        try putRawRecord(store, "one", in: "forever", one)
        let forever = store.collection("forever")
        for key in ["two", "refreshed", "one"] {
            let entry = try #require(try forever.entry(User.self, forKey: key), "\(key)")
            #expect(entry.expiresAt == nil, "\(key)")
        }
        // Past the far deadline itself: still live, never swept.
        fixture.clock.advance(by: RecordHeader.neverLifetime + 86_400)
        #expect(try forever.count() == 3)
        #expect(try store.removeExpiredObjects() == 0)
        #expect(try forever.object(User.self, forKey: "one") == User.sample("one"))
        // Rewritten, they get the flag.
        #expect(try forever.refresh(forKey: "one"))
        #expect(try forever.replaceMetadata("etag-2", forKey: "two"))
        #expect(try Self.isFlaggedNever(store, "one", in: "forever"))
        #expect(try Self.isFlaggedNever(store, "two", in: "forever"))
        #expect(try forever.entry(User.self, forKey: "two")?.expiresAt == nil)
        // A deadline that is merely far (a lifetime a program chose) is kept as a deadline.
        try store.set(1, forKey: "far", expiresAfter: RecordHeader.neverLifetime / 2)
        #expect(try store.entry(Int.self, forKey: "far")?.expiresAt != nil)
    }
}
