import Foundation
import Testing
@testable import ModelStore
import ModelStoreTestSupport

@Suite("Indexes: queries")
struct IndexQueryTests {
    let day: TimeInterval = 86_400

    func post(_ author: String, _ day: Double, tags: [String] = [], score: Int64 = 0) -> Post {
        Post(author: author, createdAt: Date(timeIntervalSinceReferenceDate: day * 86_400), tags: tags, score: score)
    }

    @Test("An equality query returns the records holding the value, in key order; keys and count agree")
    func equality() throws {
        let store = try Fixture().open()
        let posts = store.collection("posts")
        try PostIndexes.define(on: posts)
        try posts.set(post("ada", 1), forKey: "p3")
        try posts.set(post("bob", 2), forKey: "p1")
        try posts.set(post("ada", 3), forKey: "p2")
        let mine = try posts.entries(Post.self, where: "byAuthor", equals: .string("ada")).collect()
        #expect(mine.map(\.key) == ["p2", "p3"])
        #expect(mine.map(\.value.author) == ["ada", "ada"])
        #expect(try posts.keys(where: "byAuthor", equals: .string("ada")).collect() == ["p2", "p3"])
        #expect(try posts.count(where: "byAuthor", equals: .string("ada")) == 2)
        #expect(try posts.count(where: "byAuthor", equals: .string("carol")) == 0)
        #expect(try posts.count(where: "byAuthor", equals: .int(0)) == 0)
    }

    @Test("A range query walks index order, then key order, forwards or reversed, up to a limit")
    func ranges() throws {
        let store = try Fixture().open()
        let posts = store.collection("posts")
        try PostIndexes.define(on: posts)
        for (index, day) in [5.0, 1, 3, 3, 9, -2].enumerated() {
            try posts.set(post("a", day, score: Int64(day)), forKey: "k\(index)")
        }
        let since = Date(timeIntervalSinceReferenceDate: 0)
        let recent = try posts.entries(
            Post.self, where: "byTime", in: .date(since) ..< .date(.distantFuture), reverse: true, limit: 3)
        #expect(try recent.collect().map(\.key) == ["k4", "k0", "k3"])
        let all = try posts.entries(Post.self, where: "byScore", in: .int(.min) ... .int(.max)).collect()
        #expect(all.map(\.key) == ["k5", "k1", "k2", "k3", "k0", "k4"])
        let closed = try posts.entries(Post.self, where: "byScore", in: .int(1) ... .int(3)).collect()
        #expect(closed.map(\.key) == ["k1", "k2", "k3"])
        let halfOpen = try posts.entries(Post.self, where: "byScore", in: .int(1) ..< .int(3)).collect()
        #expect(halfOpen.map(\.key) == ["k1"])
    }

    @Test("An indexer may return many values: each is an entry; repeats are stored once")
    func manyValues() throws {
        let store = try Fixture().open()
        let posts = store.collection("posts")
        try PostIndexes.define(on: posts)
        try posts.set(post("a", 1, tags: ["swift", "db", "swift"]), forKey: "p1")
        try posts.set(post("a", 1, tags: ["db"]), forKey: "p2")
        try posts.set(post("a", 1), forKey: "p3")
        #expect(try posts.keys(where: "byTag", equals: .string("swift")).collect() == ["p1"])
        #expect(try posts.keys(where: "byTag", equals: .string("db")).collect() == ["p1", "p2"])
        let everyTag = try posts.entries(Post.self, where: "byTag", in: .string("") ..< .string("zzz")).collect()
        #expect(everyTag.map(\.key) == ["p1", "p2", "p1"])  // "db" then "swift"
    }

    @Test("Expired records are never returned and never counted, and a query does not remove them")
    func expiredRecords() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        let posts = store.collection("posts")
        try PostIndexes.define(on: posts)
        try posts.set(post("ada", 1), forKey: "short", expiresAfter: 10)
        try posts.set(post("ada", 1), forKey: "long", expiresAfter: 1_000)
        fixture.clock.advance(by: 20)
        #expect(try posts.keys(where: "byAuthor", equals: .string("ada")).collect() == ["long"])
        #expect(try posts.count(where: "byAuthor", equals: .string("ada")) == 1)
        #expect(try posts.entries(Post.self, where: "byAuthor", equals: .string("ada")).collect().map(\.key) == ["long"])
        #expect(try store.rawIndexKeys().entries == 6)  // both records, 3 indexes with a value
        #expect(try posts.removeExpiredObjects() == 1)
        #expect(try store.rawIndexKeys().entries == 3)
    }

    @Test("Strings compare by their UTF-8 bytes: é and e + U+0301 are two values")
    func canonicallyEquivalentStrings() throws {
        let store = try Fixture().open()
        let posts = store.collection("posts")
        try PostIndexes.define(on: posts)
        try posts.set(post("\u{E9}", 1), forKey: "composed")
        try posts.set(post("e\u{301}", 1), forKey: "decomposed")
        #expect(try posts.keys(where: "byAuthor", equals: .string("\u{E9}")).collect() == ["composed"])
        #expect(try posts.keys(where: "byAuthor", equals: .string("e\u{301}")).collect() == ["decomposed"])
        #expect(IndexValue.string("\u{E9}") != IndexValue.string("e\u{301}"))
    }

    @Test("A query reads a snapshot: writes after the cursor is made are not seen")
    func snapshotIsolation() throws {
        let store = try Fixture().open()
        let posts = store.collection("posts")
        try PostIndexes.define(on: posts)
        try posts.set(post("ada", 1), forKey: "a")
        try posts.set(post("ada", 1), forKey: "b")
        let cursor = try posts.keys(where: "byAuthor", equals: .string("ada"))
        try posts.removeObject(forKey: "b")
        try posts.set(post("ada", 1), forKey: "c")
        #expect(try cursor.collect() == ["a", "b"])
    }

    @Test("Indexes work on the store's own keys, apart from a collection's of the same name")
    func defaultCollection() throws {
        let store = try Fixture().open()
        let posts = store.collection("posts")
        try PostIndexes.define(on: store)
        try PostIndexes.define(on: posts)
        try store.set(post("ada", 1), forKey: "s")
        try posts.set(post("ada", 1), forKey: "c")
        #expect(try store.keys(where: "byAuthor", equals: .string("ada")).collect() == ["s"])
        #expect(try posts.keys(where: "byAuthor", equals: .string("ada")).collect() == ["c"])
        #expect(try store.keys().collect() == ["s"])  // no index entry shows as a key
        #expect(try store.count() == 1)
    }

    @Test("Queries name what is wrong: an undefined index, a bad name")
    func errors() throws {
        let store = try Fixture().open()
        let posts = store.collection("posts")
        #expect(throws: ModelStoreError.indexNotDefined(index: "byAuthor", collection: "posts")) {
            try posts.keys(where: "byAuthor", equals: .string("ada"))
        }
        #expect(throws: ModelStoreError.self) { try posts.count(where: "", equals: .bool(true)) }
        let error = ModelStoreError.indexNotBuilt(index: "byAuthor", collection: "posts")
        #expect(error.description.contains("defineIndex"))
        #expect(ModelStoreError.invalidName(name: "", reason: DefinedIndex.nameReasonPrefix + "is empty")
            .description.hasPrefix("Invalid index name"))
    }
}
