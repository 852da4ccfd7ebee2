import Foundation
import Testing
@testable import ModelStore
import ModelStoreTestSupport

/// Every write path keeps the indexes: the entries always describe exactly the stored records.
@Suite("Indexes: maintenance by every write")
struct IndexMaintenanceTests {
    func post(_ author: String, tags: [String] = [], score: Int64 = 0) -> Post {
        Post(author: author, createdAt: Date(timeIntervalSinceReferenceDate: 0), tags: tags, score: score)
    }

    func authors(_ posts: ModelStore.Collection, _ author: String) throws -> [String] {
        try posts.keys(where: "byAuthor", equals: .string(author)).collect()
    }

    func open() throws -> (Fixture, ModelStore, ModelStore.Collection) {
        let fixture = Fixture()
        let store = try fixture.open()
        let posts = store.collection("posts")
        try PostIndexes.define(on: posts)
        return (fixture, store, posts)
    }

    @Test("An overwrite replaces the record's entries; a removal removes them")
    func overwriteAndRemove() throws {
        let (_, store, posts) = try open()
        try posts.set(post("ada"), forKey: "p")
        try posts.set(post("bob"), forKey: "p")
        #expect(try authors(posts, "ada") == [])
        #expect(try authors(posts, "bob") == ["p"])
        try posts.removeObject(forKey: "p")
        #expect(try authors(posts, "bob") == [])
        #expect(try store.rawIndexKeys() == (0, 0))
    }

    @Test("Batches, including a set and a removal of one key, and imports keep the entries")
    func batchesAndImports() async throws {
        let (_, store, posts) = try open()
        try store.write { batch in
            try batch.set(post("ada"), forKey: "a", in: posts)
            try batch.set(post("bob"), forKey: "b", in: posts)
            batch.removeObject(forKey: "b", in: posts)
            try batch.set(post("carol"), forKey: "c", in: posts)
            try batch.set(post("dan"), forKey: "c", in: posts)
        }
        #expect(try authors(posts, "ada") == ["a"])
        #expect(try authors(posts, "bob") == [])
        #expect(try authors(posts, "carol") == [])
        #expect(try authors(posts, "dan") == ["c"])
        let models = (0..<2_500).map { post($0 % 2 == 0 ? "even" : "odd", score: Int64($0)) }
        var index = 0
        try await posts.importObjects(models, key: { _ in defer { index += 1 }; return String(format: "i%05d", index) })
        #expect(try posts.count(where: "byAuthor", equals: .string("even")) == 1_250)
        try posts.removeObjects(forKeys: ["a", "c", "i00000"])
        #expect(try posts.count(where: "byAuthor", equals: .string("even")) == 1_249)
        #expect(try authors(posts, "dan") == [])
        #expect(try posts.removeObjects(withPrefix: "i0") == 2_499)
        #expect(try store.rawIndexKeys() == (0, 0))
    }

    @Test("removeAllObjects, removal by tag, sweeps and limits remove the entries with the records")
    func bulkRemovals() throws {
        let fixture = Fixture()
        var configuration = fixture.configuration
        configuration.maximumRecordCount = 10
        let store = try ModelStore(name: "db", policy: .never, configuration: configuration)
        let posts = store.collection("posts")
        try PostIndexes.define(on: posts)
        for index in 0..<6 { try posts.set(post("ada"), forKey: "t\(index)", tags: ["team"]) }
        #expect(try store.removeObjects(taggedWith: "team") == 6)
        #expect(try store.rawIndexKeys() == (0, 0))
        for index in 0..<30 { try posts.set(post("ada"), forKey: String(format: "k%02d", index)) }
        try store.removeExpiredObjects()  // the limit: 10 records stay
        let counted = try posts.count()
        #expect(counted == 10)
        #expect(try posts.count(where: "byAuthor", equals: .string("ada")) == 10)
        // Author, time and score for 10 records, in their sections: no values entry.
        #expect(try store.rawIndexKeys() == (30, 0))
        #expect(try store.rawIndexValues().count == 10)
        #expect(try posts.removeAllObjects() == 10)
        #expect(try store.rawIndexKeys() == (0, 0))
    }

    @Test("refresh and replaceMetadata keep the entries; an expired record's go with its purge")
    func rewritesAndPurges() throws {
        let (fixture, store, posts) = try open()
        try posts.set(post("ada"), forKey: "p", expiresAfter: 10)
        #expect(try posts.refresh(forKey: "p", expiresAfter: 100))
        #expect(try posts.replaceMetadata("etag", forKey: "p"))
        #expect(try authors(posts, "ada") == ["p"])
        fixture.clock.advance(by: 50)
        #expect(try authors(posts, "ada") == ["p"])
        fixture.clock.advance(by: 100)
        #expect(try authors(posts, "ada") == [])
        #expect(try posts.object(Post.self, forKey: "p") == nil)  // the read purges it
        #expect(try store.rawIndexKeys() == (0, 0))
    }

    @Test("An indexer that throws fails the write: nothing is written, and writes go on")
    func throwingIndexer() throws {
        let (_, store, posts) = try open()
        try posts.defineIndex("strict", of: Post.self, version: 1) { post in
            if post.author == "bad" { throw IndexerFailure() }
            return []
        }
        try posts.set(post("ada"), forKey: "p")
        #expect(throws: ModelStoreError.indexerFailed(index: "strict", key: "p", message: "the indexer refused")) {
            try posts.set(post("bad"), forKey: "p")
        }
        #expect(try posts.object(Post.self, forKey: "p") == post("ada"))
        #expect(throws: ModelStoreError.self) {
            try store.write { batch in
                try batch.set(post("bob"), forKey: "q", in: posts)
                try batch.set(post("bad"), forKey: "r", in: posts)
            }
        }
        #expect(try posts.object(Post.self, forKey: "q") == nil)
        #expect(try authors(posts, "bob") == [])
        // A write of another type, decoded by the funnel, fails the same way.
        #expect(throws: ModelStoreError.self) {
            try posts.set(RichPost(author: "bad", createdAt: .now, tags: [], score: 0, body: ""), forKey: "p")
        }
        #expect(try posts.object(Post.self, forKey: "p") == post("ada"))
        try posts.set(post("carol"), forKey: "p")
        #expect(try authors(posts, "carol") == ["p"])
    }

    @Test("A record of another type is indexed if it decodes as the index's type, else not")
    func otherTypes() throws {
        let (_, _, posts) = try open()
        try posts.set(RichPost(author: "ada", createdAt: .now, tags: ["x"], score: 1, body: "b"), forKey: "rich")
        try posts.set(["not": "a post"], forKey: "dict")
        try posts.set(post("ada"), forKey: "plain")
        #expect(try authors(posts, "ada") == ["plain", "rich"])
        try posts.set(["not": "a post"], forKey: "rich")  // overwrite with a non-post: entries go
        #expect(try authors(posts, "ada") == ["plain"])
        #expect(try posts.keys(where: "byTag", equals: .string("x")).collect() == [])
    }

    @Test("A read-through store keeps the entries")
    func readThrough() async throws {
        let (_, _, posts) = try open()
        let model = post("ada")
        let fetched = try await posts.object(Post.self, forKey: "rt") { model }
        #expect(fetched == post("ada"))
        #expect(try authors(posts, "ada") == ["rt"])
    }
}
