import Foundation
import Testing
@testable import ModelStore
import ModelStoreTestSupport

@Suite("Indexes: definitions, builds and drops")
struct IndexDefinitionTests {
    func post(_ author: String) -> Post {
        Post(author: author, createdAt: Date(timeIntervalSinceReferenceDate: 0))
    }

    @Test("Defining an index on a collection that holds records builds it, counting records of other types")
    func buildsFromStoredRecords() throws {
        let store = try Fixture().open()
        let posts = store.collection("posts")
        for index in 0..<1_300 { try posts.set(post(index % 3 == 0 ? "ada" : "bob"), forKey: "p\(index)") }
        try posts.set(["other": "type"], forKey: "x1")
        try posts.set(42, forKey: "x2")
        var reports: [ModelStore.IndexBuildProgress] = []
        let report = try posts.defineIndex("byAuthor", of: Post.self, version: 1, progress: { reports.append($0) }) {
            [.string($0.author)]
        }
        #expect(report.indexed == 1_300)
        #expect(report.skipped == 2)
        #expect(report.isBuilt && !report.wasAlreadyBuilt)
        #expect(reports.count == 3)  // 512, 1024, the rest
        #expect(reports.last == ModelStore.IndexBuildProgress(indexed: 1_300, skipped: 2))
        #expect(try posts.count(where: "byAuthor", equals: .string("ada")) == 434)
    }

    @Test("Defining it again at the same version reads nothing; a new version rebuilds and clears the old entries")
    func versions() throws {
        let fixture = Fixture()
        do {
            let store = try fixture.open()
            let posts = store.collection("posts")
            try posts.defineIndex("byAuthor", of: Post.self, version: 1) { [.string($0.author)] }
            try posts.set(post("ada"), forKey: "a")
            try posts.set(post("bob"), forKey: "b")
        }
        let store = try fixture.open()
        let posts = store.collection("posts")
        #expect(throws: ModelStoreError.indexNotDefined(index: "byAuthor", collection: "posts")) {
            try posts.count(where: "byAuthor", equals: .string("ada"))
        }
        let again = try posts.defineIndex("byAuthor", of: Post.self, version: 1) { [.string($0.author)] }
        #expect(again.wasAlreadyBuilt)
        #expect(try posts.count(where: "byAuthor", equals: .string("ada")) == 1)
        let rebuilt = try posts.defineIndex("byAuthor", of: Post.self, version: 2) { [.string($0.author.uppercased())] }
        #expect(!rebuilt.wasAlreadyBuilt && rebuilt.indexed == 2)
        #expect(try posts.count(where: "byAuthor", equals: .string("ada")) == 0)
        #expect(try posts.count(where: "byAuthor", equals: .string("ADA")) == 1)
        #expect(try store.rawIndexKeys() == (2, 2))
    }

    @Test("A cancelled build leaves the index unqueryable; the next definition goes on where it stopped")
    func cancelAndResume() async throws {
        let store = try Fixture().open()
        let posts = store.collection("posts")
        for index in 0..<2_000 { try posts.set(post("ada"), forKey: String(format: "p%04d", index)) }
        let task = Task {
            try posts.defineIndex("byAuthor", of: Post.self, version: 1, progress: { progress in
                if progress.indexed >= 1_024 { withUnsafeCurrentTask { $0?.cancel() } }
            }) { [.string($0.author)] }
        }
        let first = try await task.value
        #expect(first.wasCancelled && first.indexed == 1_024)
        #expect(throws: ModelStoreError.indexNotBuilt(index: "byAuthor", collection: "posts")) {
            try posts.count(where: "byAuthor", equals: .string("ada"))
        }
        // Writes while it is not built are indexed all the same.
        try posts.set(post("ada"), forKey: "p0000")
        try posts.set(post("ada"), forKey: "z")
        let second = try posts.defineIndex("byAuthor", of: Post.self, version: 1) { [.string($0.author)] }
        #expect(!second.wasCancelled && second.indexed == 977)
        #expect(try posts.count(where: "byAuthor", equals: .string("ada")) == 2_001)
        // The build's records keep their values in values entries, but for the two written
        // with their section meanwhile.
        #expect(try store.rawIndexKeys() == (2_001, 1_999))
        #expect(try store.rawIndexValues().count == 2_001)
    }

    @Test("dropIndex removes the definition and every entry; dropping an unknown index succeeds")
    func drop() throws {
        let store = try Fixture().open()
        let posts = store.collection("posts")
        try PostIndexes.define(on: posts)
        for index in 0..<5_000 { try posts.set(post("ada"), forKey: "p\(index)") }
        try posts.dropIndex("byAuthor")
        try posts.dropIndex("byAuthor")
        try posts.dropIndex("never defined")
        #expect(throws: ModelStoreError.indexNotDefined(index: "byAuthor", collection: "posts")) {
            try posts.keys(where: "byAuthor", equals: .string("ada"))
        }
        #expect(try store.rawIndexKeys() == (10_000, 0))  // byTime and byScore stay, in the records' sections
        try posts.set(post("ada"), forKey: "later")
        #expect(try posts.count(where: "byScore", equals: .int(0)) == 5_001)
        let keys = try store.rawKeys()
        #expect(!keys.contains { $0.starts(with: IndexKeys.definitionKey(name: "byAuthor", in: posts.scope.space)) })
    }

    @Test("A backup carries built indexes: the restored database answers queries after defineIndex reads nothing")
    func backupAndRestore() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        let posts = store.collection("posts")
        try posts.defineIndex("byAuthor", of: Post.self, version: 1) { [.string($0.author)] }
        try posts.set(post("ada"), forKey: "a")
        try posts.set(post("bob"), forKey: "b")
        let backup = fixture.directory.url.appendingPathComponent("copy")
        try store.backup(to: backup)
        try posts.removeObject(forKey: "a")
        try ModelStore.restore(from: backup, named: "restored", in: fixture.directory.url)
        let restored = try fixture.open("restored").collection("posts")
        #expect(try restored.defineIndex("byAuthor", of: Post.self, version: 1) { [.string($0.author)] }.wasAlreadyBuilt)
        #expect(try restored.keys(where: "byAuthor", equals: .string("ada")).collect() == ["a"])
        #expect(try posts.keys(where: "byAuthor", equals: .string("ada")).collect() == [])
    }

    @Test("The definition record round-trips and refuses damaged bytes")
    func definitionFormat() throws {
        var definition = IndexDefinition(state: .building, id: 7, version: -3, typeName: "Post")
        definition.resumeKey = Array("k\u{E9}".utf8)
        definition.retired = [1, 5]
        definition.indexed = 300
        definition.skipped = 2
        let key = IndexKeys.definitionKey(name: "byAuthor", in: try KeySpace(collection: "posts"))
        var value = definition.value(key: key)
        let parsed = key.withUnsafeBytes { key in value.withUnsafeBytes { IndexDefinition(key: key, value: $0) } }
        #expect(parsed == definition)
        value[3] ^= 1
        let damaged = key.withUnsafeBytes { key in value.withUnsafeBytes { IndexDefinition(key: key, value: $0) } }
        #expect(damaged == nil)
        let split = key.withUnsafeBytes { IndexKeys.split(definitionKey: $0) }
        #expect(split?.space.collection == "posts" && split?.name == "byAuthor")
        let defaultKey = IndexKeys.definitionKey(name: "\u{FE}x", in: .default)
        let defaultSplit = defaultKey.withUnsafeBytes { IndexKeys.split(definitionKey: $0) }
        #expect(defaultSplit?.space.isDefault == true && defaultSplit?.name == "\u{FE}x")
    }
}
