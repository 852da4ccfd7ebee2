import Foundation
import Testing
@testable import ModelStore
import ModelStoreTestSupport

/// A record's index values section (flag bit 6): what a set stores, what rewrites copy, what a
/// query checks an entry against, and the floor that keeps an id from meaning two indexes.
@Suite("Indexes: the record's index values section")
struct IndexSectionTests {
    func post(_ author: String, tags: [String] = [], score: Int64 = 0) -> Post {
        Post(author: author, createdAt: Date(timeIntervalSinceReferenceDate: 0), tags: tags, score: score)
    }

    static func expected(_ posts: ModelStore.Collection) -> [ExpectedIndex] {
        [
            .posts(posts, "byAuthor") { [.string($0.author)] },
            .posts(posts, "byTime") { [.date($0.createdAt)] },
            .posts(posts, "byTag") { $0.tags.map { .string($0) } },
            .posts(posts, "byScore") { [.int($0.score)] },
        ]
    }

    static func physicalKey(_ key: String, in posts: ModelStore.Collection) -> [UInt8] {
        posts.scope.space.prefix + Array(key.utf8)
    }

    @Test("A set stores a part per index, empty ones included; refresh and replaceMetadata copy it; no values entry is written")
    func setsAndRewrites() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        let posts = store.collection("posts")
        try PostIndexes.define(on: posts)
        try posts.set(post("ada", score: 3), forKey: "p", tags: ["team"])
        let key = Self.physicalKey("p", in: posts)
        let section = try #require(try store.rawSection(key))
        #expect(section.count == 4)
        #expect(section.values.filter(\.isEmpty).count == 1)  // byTag: the post has no tags
        #expect(try posts.refresh(forKey: "p", expiresAfter: 100))
        #expect(try store.rawSection(key) == section)
        #expect(try posts.replaceMetadata("etag", forKey: "p"))
        #expect(try store.rawSection(key) == section)
        #expect(try posts.object(Post.self, forKey: "p") == post("ada", score: 3))
        #expect(try store.rawIndexKeys() == (3, 0))
        #expect(try store.indexProblems(Self.expected(posts)) == [])
    }

    @Test("A store without indexes writes no section; records of a model type no index reads have none either")
    func noSectionWithoutIndexes() throws {
        let store = try Fixture().open()
        let posts = store.collection("posts")
        try posts.set(post("ada"), forKey: "p")
        #expect(try store.rawSection(Self.physicalKey("p", in: posts)) == nil)
        try PostIndexes.define(on: posts)
        try posts.set("a string", forKey: "s")
        #expect(try store.rawSection(Self.physicalKey("s", in: posts)) == nil)
        #expect(try store.rawIndexKeys() == (3, 1))  // "p", indexed by the build, in a values entry
        try posts.set(post("bob"), forKey: "s")
        #expect(try store.rawSection(Self.physicalKey("s", in: posts))?.count == 4)
        #expect(try store.indexProblems(Self.expected(posts)) == [])
    }

    @Test("An entry left by a removal outside the write funnel is not returned once the key holds another value")
    func staleEntryIsCheckedAgainstTheSection() throws {
        let fixture = Fixture()
        try fixture.runProgram { _, posts in try posts.set(post("ada"), forKey: "p") }
        // Another LevelDB client deletes the record: the entries stay behind. (A program of this
        // release without the indexes removes them: they are known from the database.)
        try fixture.runProgram(definingIndexes: false) { store, posts in
            let physical = Self.physicalKey("p", in: posts)
            try store.database.run { engine in try physical.withUnsafeBytes { try engine.delete(key: $0, sync: true) } }
        }
        let store = try fixture.open()
        let posts = store.collection("posts")
        try PostIndexes.define(on: posts)
        try posts.set(post("bob"), forKey: "p")
        #expect(try store.rawIndexKeys().entries > 3)  // ada's entries are still there
        #expect(try posts.keys(where: "byAuthor", equals: .string("ada")).collect() == [])
        #expect(try posts.count(where: "byAuthor", equals: .string("ada")) == 0)
        #expect(try posts.entries(Post.self, where: "byAuthor", equals: .string("ada")).collect().isEmpty)
        #expect(try posts.keys(where: "byAuthor", equals: .string("bob")).collect() == ["p"])
    }

    @Test("An id is never given out twice: not after a drop in a later process, nor when the floor record is damaged")
    func idsAreNeverReused() throws {
        let fixture = Fixture()
        try fixture.runProgram(definingIndexes: false) { store, posts in
            try posts.defineIndex("a", of: Post.self, version: 1) { [.string($0.author)] }
            try posts.defineIndex("b", of: Post.self, version: 1) { [.int($0.score)] }
            try posts.set(post("ada", score: 1), forKey: "p")
            try posts.dropIndex("b")
        }
        try fixture.runProgram(definingIndexes: false) { store, posts in
            try posts.defineIndex("c", of: Post.self, version: 1) { [.int($0.score)] }
            #expect(store.database.indexes.index(named: "c", in: posts.scope.space)?.id == 3)
            try posts.dropIndex("c")
            // Damage the floor: it is rebuilt from the records' sections, which name 1 and 2 ("p"
            // was written before b's drop and c's definition).
            try store.database.run { engine in
                try IndexIDFloor.key.withUnsafeBytes { key in
                    try [UInt8]([1, 2, 3]).withUnsafeBytes { try engine.put(key: key, value: $0, sync: true) }
                }
            }
        }
        let store = try fixture.open()
        let posts = store.collection("posts")
        try posts.defineIndex("d", of: Post.self, version: 1) { [.int($0.score)] }
        let id = try #require(store.database.indexes.index(named: "d", in: posts.scope.space)?.id)
        #expect(id > 2)
        #expect(try IndexIDFloor.read(from: store.database.engine) == .id(id))
        #expect(try posts.keys(where: "d", equals: .int(1)).collect() == ["p"])
        try posts.set(post("ada", score: 2), forKey: "p")
        #expect(try posts.keys(where: "d", equals: .int(1)).collect() == [])
        #expect(try posts.keys(where: "d", equals: .int(2)).collect() == ["p"])
    }

    @Test("A database whose indexes were defined before the floor existed gets one at its next defineIndex")
    func floorIsWrittenForOlderDatabases() throws {
        let fixture = Fixture()
        try fixture.runProgram { store, _ in
            try store.database.run { engine in
                try IndexIDFloor.key.withUnsafeBytes { try engine.delete(key: $0, sync: true) }
            }
            #expect(try IndexIDFloor.read(from: store.database.engine) == .absent)
        }
        let store = try fixture.open()
        try PostIndexes.define(on: store.collection("posts"))
        #expect(try IndexIDFloor.read(from: store.database.engine) == .id(4))
    }
}
