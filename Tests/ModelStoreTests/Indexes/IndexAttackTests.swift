import Foundation
import Testing
@testable import ModelStore
import ModelStoreTestSupport

/// Secondary indexes under hostile input: indexers that fail part way through an import,
/// values at the edges of every kind, names that differ only in normalisation, an index
/// dropped while a query walks it.
@Suite("Indexes under attack")
struct IndexAttackTests {
    /// A model that names values by their position in ``edges`` (index "edges") or as
    /// integers (index "ints"): the model itself stays plain JSON whatever the values are.
    struct Carrier: Codable, Equatable, Sendable {
        var picks: [Int]
    }

    static let huge = String(repeating: "x", count: 1 << 20)
    static let edges: [IndexValue] = [
        .string(""), .string("\u{0}"), .string("\u{0}\u{0}"), .string(huge), .string("caf\u{E9}"), .string("cafe\u{301}"),
        .int(.min), .int(.max), .int(0), .double(-0.0), .double(.nan), .double(.infinity), .double(-.infinity),
        .double(.leastNonzeroMagnitude), .double(-.greatestFiniteMagnitude), .date(.distantPast), .date(.distantFuture),
        .date(Date(timeIntervalSinceReferenceDate: .infinity)), .date(Date(timeIntervalSinceReferenceDate: -.infinity)),
        .bool(false), .bool(true),
    ]

    static func open() throws -> (ModelStore, ModelStore.Collection) {
        let store = try Fixture().open()
        let items = store.collection("items")
        try items.defineIndex("edges", of: Carrier.self, version: 1) { $0.picks.map { IndexAttackTests.edges[$0] } }
        try items.defineIndex("ints", of: Carrier.self, version: 1) { $0.picks.map { .int(Int64($0)) } }
        return (store, items)
    }

    @Test("An indexer that throws in the third chunk of an import: the earlier chunks and their entries stay, nothing of that chunk is written")
    func importFailsPartWay() async throws {
        let store = try Fixture().open()
        let posts = store.collection("posts")
        try posts.defineIndex("byAuthor", of: Post.self, version: 1) { post in
            if post.author == "bad" { throw IndexerFailure() }
            return [.string(post.author)]
        }
        let models = (0..<1_000).map { index in
            Post(author: index == 650 ? "bad" : "a\(index % 7)", createdAt: Date(timeIntervalSinceReferenceDate: Double(index)))
        }
        await #expect(throws: ModelStoreError.self) {
            try await posts.importObjects(
                models, key: { "p\(Int($0.createdAt.timeIntervalSinceReferenceDate) + 10_000)" }, batchSize: 300)
        }
        #expect(try posts.count() == 600)
        var indexed = 0
        for author in 0..<7 { indexed += try posts.count(where: "byAuthor", equals: .string("a\(author)")) }
        #expect(indexed == 600)
        let raw = try store.rawIndexKeys()
        #expect(raw.entries == 600)
        #expect(raw.reverse == 0)  // the values are in the records' sections
        #expect(try store.rawIndexValues().count == 600)
    }

    @Test("Values at the edges of every kind are found by equality and in order by range; an overwrite removes them all")
    func edgeValues() throws {
        let (store, items) = try Self.open()
        let edges = Self.edges
        for index in edges.indices {
            try items.set(Carrier(picks: [index, index]), forKey: "k\(index)")  // a repeat is stored once
        }
        try items.set(Carrier(picks: []), forKey: "none")
        for (index, edge) in edges.enumerated() {
            #expect(try items.keys(where: "edges", equals: edge).collect() == ["k\(index)"], "\(index)")
            #expect(try items.count(where: "edges", equals: edge) == 1, "\(index)")
        }
        // -0.0 is stored as 0.0; every NaN is one value.
        #expect(try items.keys(where: "edges", equals: .double(0)).collect() == ["k9"])
        #expect(try items.keys(where: "edges", equals: .double(-Double.nan)).collect() == ["k10"])
        let all = try items.entries(Carrier.self, where: "edges", in: IndexValue.bool(false)...IndexValue.string(Self.huge)).collect()
        #expect(all.count == edges.count)
        let order = all.map { edges[$0.value.picks[0]] }
        #expect(order == order.sorted())
        #expect(try store.rawIndexKeys().entries == 2 * edges.count)
        for index in edges.indices { try items.set(Carrier(picks: []), forKey: "k\(index)") }
        #expect(try store.rawIndexKeys().entries == 0)
    }

    @Test("Limits of zero or below give nothing; a range whose bounds are equal gives nothing")
    func degenerateQueries() throws {
        let (_, items) = try Self.open()
        for index in 0..<10 { try items.set(Carrier(picks: [index]), forKey: "k\(index)") }
        #expect(try items.entries(Carrier.self, where: "ints", in: IndexValue.int(0)..<IndexValue.int(10), limit: 0).collect().isEmpty)
        #expect(try items.entries(Carrier.self, where: "ints", in: IndexValue.int(0)..<IndexValue.int(10), limit: -1).collect().isEmpty)
        #expect(try items.entries(Carrier.self, where: "ints", in: IndexValue.int(5)..<IndexValue.int(5)).collect().isEmpty)
        #expect(try items.entries(Carrier.self, where: "ints", in: IndexValue.int(5)...IndexValue.int(5)).collect().count == 1)
        #expect(try items.entries(Carrier.self, where: "ints", in: IndexValue.int(0)..<IndexValue.int(10), reverse: true, limit: 3)
            .collect().map(\.key) == ["k9", "k8", "k7"])
    }

    @Test("Index names that differ only in normalisation are two indexes; names with ':' or NUL work; empty and over-long names are refused")
    func hostileNames() throws {
        let store = try Fixture().open()
        let items = store.collection("items")
        try items.defineIndex("caf\u{E9}", of: Carrier.self, version: 1) { _ in [.int(1)] }
        try items.defineIndex("cafe\u{301}", of: Carrier.self, version: 1) { _ in [.int(2)] }
        try items.defineIndex("a:b", of: Carrier.self, version: 1) { _ in [.int(3)] }
        try items.set(Carrier(picks: []), forKey: "k")
        #expect(try items.keys(where: "caf\u{E9}", equals: .int(1)).collect() == ["k"])
        #expect(try items.keys(where: "caf\u{E9}", equals: .int(2)).collect() == [])
        #expect(try items.keys(where: "cafe\u{301}", equals: .int(2)).collect() == ["k"])
        #expect(try items.keys(where: "a:b", equals: .int(3)).collect() == ["k"])
        try items.dropIndex("cafe\u{301}")
        #expect(try items.keys(where: "caf\u{E9}", equals: .int(1)).collect() == ["k"])
        #expect(throws: ModelStoreError.self) { try items.keys(where: "cafe\u{301}", equals: .int(2)) }
        // Names are bytes: one with a NUL is its own index, apart from its prefix.
        try items.defineIndex("a\u{0}", of: Carrier.self, version: 1) { _ in [.int(4)] }
        try items.defineIndex("a", of: Carrier.self, version: 1) { _ in [.int(5)] }
        try items.set(Carrier(picks: []), forKey: "k")
        #expect(try items.keys(where: "a\u{0}", equals: .int(4)).collect() == ["k"])
        #expect(try items.keys(where: "a", equals: .int(5)).collect() == ["k"])
        #expect(try items.keys(where: "a", equals: .int(4)).collect() == [])
        for bad in ["", String(repeating: "n", count: 256), String(repeating: "\u{E9}", count: 128)] {
            #expect(throws: ModelStoreError.self) {
                try items.defineIndex(bad, of: Carrier.self, version: 1) { _ in [] }
            }
        }
    }

    @Test("An index dropped while a cursor walks it: the cursor finishes from its snapshot; later queries throw indexNotDefined")
    func dropDuringQuery() throws {
        let (_, items) = try Self.open()
        for index in 0..<50 { try items.set(Carrier(picks: [7]), forKey: "k\(String(100 + index))") }
        let cursor = try items.entries(Carrier.self, where: "ints", equals: .int(7))
        var seen = [try cursor.next()?.key]
        try items.dropIndex("ints")
        while let entry = try cursor.next() { seen.append(entry.key) }
        #expect(seen.count == 50)
        #expect(throws: ModelStoreError.indexNotDefined(index: "ints", collection: "items")) {
            try items.count(where: "ints", equals: .int(7))
        }
        // Writes go on without the index, and a new definition builds it from the records.
        try items.set(Carrier(picks: [7]), forKey: "late")
        try items.defineIndex("ints", of: Carrier.self, version: 1) { $0.picks.map { .int(Int64($0)) } }
        #expect(try items.count(where: "ints", equals: .int(7)) == 51)
    }

    @Test("An index defined again after a drop, in a new process, gets an id never given out before, and indexes every record, one it skipped included")
    func redefinitionAfterADropReusingTheID() throws {
        let fixture = Fixture()
        let first = try fixture.open()
        var items = first.collection("items")
        let indexer: @Sendable (Carrier) -> [IndexValue] = { $0.picks.map { .int(Int64($0)) } }
        try items.defineIndex("ints", of: Carrier.self, version: 1, indexer)
        for index in 0..<20 { try items.set(Carrier(picks: [7]), forKey: "k\(index)") }
        try items.set(Carrier(picks: [7]), forKey: "odd")
        try items.dropIndex("ints")
        // With no index defined, writes leave the values entries alone: "odd" keeps its part.
        try items.set("not a carrier", forKey: "odd")
        // A new process: the database's floor (FF 14) still keeps the ids it gave out.
        try first.close()
        let store = try fixture.open()
        defer { try? store.close() }
        items = store.collection("items")
        let report = try items.defineIndex("ints", of: Carrier.self, version: 1, indexer)
        #expect(report.indexed == 20 && report.skipped == 1)
        #expect(store.database.indexes.index(named: "ints", in: items.scope.space)?.id == 2, "never the dropped index's id")
        #expect(try items.count(where: "ints", equals: .int(7)) == 20)
        // The skipped record's old part is gone: writing the same values again indexes it.
        try items.set(Carrier(picks: [7]), forKey: "odd")
        #expect(try items.count(where: "ints", equals: .int(7)) == 21)
        #expect(try items.keys(where: "ints", equals: .int(7)).collect().contains("odd"))
    }
}

/// Index ids are never reused while entries of an earlier index with that id remain: a
/// definition lost to damage (or to a repair that dropped its block) leaves its entries behind,
/// and a new index must not answer with them.
@Suite("Indexes: ids of lost definitions")
struct LostDefinitionTests {
    /// Flips a byte of the stored definition of index `name` in `space`, behind the store's back.
    static func damageDefinition(_ store: ModelStore, name: String, in space: KeySpace) throws {
        let key = IndexKeys.definitionKey(name: name, in: space)
        var value = try #require(try store.database.run { engine in
            try key.withUnsafeBytes { keyBytes in try engine.withValue(forKey: keyBytes) { $0.map { Array($0) } } }
        })
        value[value.count - 1] ^= 0x01
        try store.database.write { engine in
            try key.withUnsafeBytes { keyBytes in try value.withUnsafeBytes { try engine.put(key: keyBytes, value: $0, sync: false) } }
        }
    }

    @Test("A definition forged to name the highest index id: a new index is refused with a corrupted error, never a crash")
    func definitionNamingTheHighestID() throws {
        let store = try Fixture().open()
        let posts = store.collection("posts")
        try posts.defineIndex("byAuthor", of: Post.self, version: 1) { [.string($0.author)] }
        let key = IndexKeys.definitionKey(name: "byAuthor", in: try KeySpace(collection: "posts"))
        var definition = try #require(try store.database.run { try IndexDefinition.read(key: key, from: $0, path: "") })
        definition.id = .max
        let value = definition.value(key: key)
        try store.database.write { engine in
            try key.withUnsafeBytes { keyBytes in try value.withUnsafeBytes { try engine.put(key: keyBytes, value: $0, sync: false) } }
        }
        #expect {
            try posts.defineIndex("byTag", of: Post.self, version: 1) { $0.tags.map { .string($0) } }
        } throws: { error in
            guard case ModelStoreError.corrupted(_, let message) = error else { return false }
            return message.contains("no index id is left")
        }
        // The store goes on: writes and the other index's queries still answer.
        try posts.set(Post(author: "ada", createdAt: Date(timeIntervalSinceReferenceDate: 0)), forKey: "p")
        #expect(try posts.object(Post.self, forKey: "p")?.author == "ada")
    }

    @Test("After a damaged definition is dropped, a new index never answers with the lost index's entries")
    func newIndexAfterDamagedDefinition() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        let posts = store.collection("posts")
        try posts.defineIndex("byAuthor", of: Post.self, version: 1) { [.string($0.author)] }
        try posts.set(Post(author: "ada", createdAt: Date(timeIntervalSinceReferenceDate: 0), tags: ["swift"]), forKey: "p1")
        try Self.damageDefinition(store, name: "byAuthor", in: try KeySpace(collection: "posts"))
        try posts.dropIndex("byAuthor")
        try posts.defineIndex("byTag", of: Post.self, version: 1) { $0.tags.map { .string($0) } }
        #expect(try posts.keys(where: "byTag", equals: .string("ada")).collect() == [])
        #expect(try posts.keys(where: "byTag", equals: .string("swift")).collect() == ["p1"])
        // An overwrite keeps the new index exact, and the lost index's entries are gone.
        try posts.set(Post(author: "bob", createdAt: Date(timeIntervalSinceReferenceDate: 0), tags: ["c"]), forKey: "p1")
        #expect(try posts.keys(where: "byTag", equals: .string("swift")).collect() == [])
        #expect(try posts.keys(where: "byTag", equals: .string("c")).collect() == ["p1"])
        #expect(try store.rawIndexKeys().entries == 1)
    }

    @Test("A definition another LevelDB client deleted leaves entries that a new index of the same name never shows")
    func deletedDefinition() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        try store.defineIndex("byAuthor", of: Post.self, version: 1) { [.string($0.author)] }
        try store.set(Post(author: "ada", createdAt: Date(timeIntervalSinceReferenceDate: 0)), forKey: "p1")
        try store.close()
        let reopened = try fixture.open()
        defer { try? reopened.close() }
        let key = IndexKeys.definitionKey(name: "byAuthor", in: .default)
        try reopened.database.write { engine in try key.withUnsafeBytes { try engine.delete(key: $0, sync: false) } }
        // The same name, another indexer: built from the records, it must hold only its own values.
        try reopened.defineIndex("byAuthor", of: Post.self, version: 1) { [.string($0.author.uppercased())] }
        #expect(try reopened.keys(where: "byAuthor", equals: .string("ada")).collect() == [])
        #expect(try reopened.keys(where: "byAuthor", equals: .string("ADA")).collect() == ["p1"])
    }

    @Test("A lost definition's entries for records a new index skips (another type) are never its answers")
    func skippedRecordsOfALostIndex() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        defer { try? store.close() }
        try store.defineIndex("byAuthor", of: Post.self, version: 1) { [.string($0.author)] }
        try store.set(Post(author: "ada", createdAt: Date(timeIntervalSinceReferenceDate: 0)), forKey: "p1")
        try Self.damageDefinition(store, name: "byAuthor", in: .default)
        try store.dropIndex("byAuthor")
        // p1 does not decode as a RichPost: the new index skips it.
        let report = try store.defineIndex("rich", of: RichPost.self, version: 1) { [.string($0.author)] }
        #expect(report.skipped == 1)
        #expect(try store.keys(where: "rich", equals: .string("ada")).collect() == [])
        #expect(try store.count(where: "rich", equals: .string("ada")) == 0)
        #expect(try store.rawIndexKeys().entries == 0)
    }
}
