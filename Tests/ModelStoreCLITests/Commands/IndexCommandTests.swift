import Foundation
import Testing
import ModelStore
import ModelStoreTestSupport

/// `modelstore indexes` and `modelstore query`.
@Suite struct IndexCommandTests {
    /// A database with a collection "books" indexed by pages and by tag, one index still building.
    private func makeStore() throws -> StoreFixture {
        let fixture = StoreFixture()
        let store = try fixture.open("db")
        let books = store.collection("books")
        try books.defineIndex("byPages", of: Book.self, version: 3) { [.int(Int64($0.pages))] }
        try books.defineIndex("byTag", of: Book.self, version: 1) { $0.tags.map { .string($0) } }
        var short = Book.sample()
        short.pages = 90
        short.tags = ["swift", "db"]
        try books.set(short, forKey: "b2")
        try books.set(short, forKey: "b1")
        try books.set(Book.sample(), forKey: "b3")
        try books.set(["not": "a book"], forKey: "x")
        // A build whose indexer throws stops at its first chunk: the index stays "building".
        struct Refusal: Error {}
        #expect(throws: ModelStoreError.self) {
            try books.defineIndex("unfinished", of: Book.self, version: 1) { _ in throw Refusal() }
        }
        try store.close()
        return fixture
    }

    @Test func queryListsTheKeysOfAValueInKeyOrder() throws {
        let fixture = try makeStore()
        let result = try ToolProcess.modelstore(["query", "db", "books", "byPages", "90", "--type", "int"] + fixture.rootArguments)
        #expect(result.status == 0)
        #expect(result.lines == ["b1", "b2"])
        let tag = try ToolProcess.modelstore(["query", "db", "books", "byTag", "db", "--json"] + fixture.rootArguments)
        #expect(try tag.decode([String].self) == ["b1", "b2"])
        let none = try ToolProcess.modelstore(["query", "db", "books", "byTag", "rust"] + fixture.rootArguments)
        #expect(none.status == 0 && none.lines.isEmpty)
    }

    @Test func queryNamesWhatIsWrong() throws {
        let fixture = try makeStore()
        let unknown = try ToolProcess.modelstore(["query", "db", "books", "byAuthor", "x"] + fixture.rootArguments)
        #expect(unknown.status == 1)
        #expect(unknown.stderr.contains("No index \"byAuthor\""))
        let badValue = try ToolProcess.modelstore(["query", "db", "books", "byPages", "many", "--type", "int"] + fixture.rootArguments)
        #expect(badValue.status == 2)
    }

    @Test func indexesListsEveryDefinition() throws {
        let fixture = try makeStore()
        let result = try ToolProcess.modelstore(["indexes", "db", "--json"] + fixture.rootArguments)
        #expect(result.status == 0)
        struct Row: Decodable, Equatable {
            let collection: String?
            let name: String
            let version: Int
            let state: String
            let indexed: Int
            let skipped: Int
        }
        let rows = try result.decode([Row].self)
        #expect(rows.map(\.name) == ["byPages", "byTag", "unfinished"])
        #expect(rows[0] == Row(collection: "books", name: "byPages", version: 3, state: "built", indexed: 0, skipped: 0))
        #expect(rows.last?.state == "building")
        let table = try ToolProcess.modelstore(["indexes", "db"] + fixture.rootArguments)
        #expect(table.lines.first?.hasPrefix("COLLECTION") == true)
        #expect(table.lines.count == 4)
    }
}
