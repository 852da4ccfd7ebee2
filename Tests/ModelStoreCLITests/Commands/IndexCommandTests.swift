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
        try books.defineIndex("byPrice", of: Book.self, version: 1) { [.double($0.price)] }
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

    @Test func queryWithoutATypeLooksTheValueUpAsTheKindsTheIndexHolds() throws {
        let fixture = try makeStore()
        let price = try ToolProcess.modelstore(["query", "db", "books", "byPrice", "12.5"] + fixture.rootArguments)
        #expect(price.status == 0)
        #expect(price.lines == ["b1", "b2", "b3"])
        let pages = try ToolProcess.modelstore(["query", "db", "books", "byPages", "90", "--reverse"] + fixture.rootArguments)
        #expect(pages.lines == ["b2", "b1"])
        let tag = try ToolProcess.modelstore(["query", "db", "books", "byTag", "swift"] + fixture.rootArguments)
        #expect(tag.lines == ["b1", "b2"])
        #expect(price.stderr.isEmpty && pages.stderr.isEmpty && tag.stderr.isEmpty)
    }

    @Test func aQueryOfAnotherKindThanTheIndexHoldsSaysWhichFlagFindsIt() throws {
        let fixture = try makeStore()
        let asString = try ToolProcess.modelstore(
            ["query", "db", "books", "byPrice", "12.5", "--type", "string"] + fixture.rootArguments)
        #expect(asString.status == 0 && asString.lines.isEmpty)
        #expect(asString.stderr.contains("holds double values"), "\(asString.stderr)")
        #expect(AdviceRunner.backticked(in: asString.stderr) == ["--type double"], "\(asString.stderr)")
        let word = try ToolProcess.modelstore(["query", "db", "books", "byPages", "many"] + fixture.rootArguments)
        #expect(word.status == 0 && word.lines.isEmpty)
        #expect(word.stderr.contains("holds int values, and \"many\" reads as none of them"), "\(word.stderr)")
        // A value the index does not hold, of its kind: nothing to say.
        let absent = try ToolProcess.modelstore(["query", "db", "books", "byPrice", "99"] + fixture.rootArguments)
        #expect(absent.status == 0 && absent.lines.isEmpty && absent.stderr.isEmpty)
    }

    @Test func queryNamesWhatIsWrong() throws {
        let fixture = try makeStore()
        let unknown = try ToolProcess.modelstore(["query", "db", "books", "byAuthor", "x"] + fixture.rootArguments)
        #expect(unknown.status == 3)
        #expect(unknown.stderr.contains("no index \"byAuthor\""))
        let listing = try AdviceRunner.run(try AdviceRunner.command("indexes", in: unknown.stderr))
        #expect(listing.status == 0 && listing.stdout.contains("byPages"))
        let building = try ToolProcess.modelstore(["query", "db", "books", "unfinished", "x"] + fixture.rootArguments)
        #expect(building.status == 1)
        #expect(building.stderr.contains("is not built yet"))
        #expect(!building.stderr.contains("defineIndex("), "\(building.stderr)")
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
            let entries: Int
            let valueKinds: [String]
        }
        let rows = try result.decode([Row].self)
        #expect(rows.map(\.name) == ["byPages", "byPrice", "byTag", "unfinished"])
        // Defined on an empty collection: its build indexed nothing, and the writes since made its entries.
        #expect(
            rows[0]
                == Row(
                    collection: "books", name: "byPages", version: 3, state: "built", indexed: 0, skipped: 0, entries: 3,
                    valueKinds: ["int"]))
        #expect(rows[2].entries == 6 && rows[2].valueKinds == ["string"])
        #expect(rows.last?.state == "building")
        let table = try ToolProcess.modelstore(["indexes", "db"] + fixture.rootArguments)
        #expect(table.lines.first?.hasPrefix("COLLECTION") == true)
        #expect(table.lines.first?.contains("ENTRIES") == true)
        #expect(table.lines.count == 5)
        let byPages = table.lines[1].split(separator: " ")
        #expect(byPages.prefix(6) == ["books", "byPages", "3", "built", "3", "int"], "\(table.stdout)")
    }
}
