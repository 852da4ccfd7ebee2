import Foundation
import Testing
@testable import ModelStore

/// The tool on a database written with record compression: `get`, `dump`, `keys`, `stats` and
/// `collections` show the decoded models, never the compressed bytes.
@Suite struct CompressedDatabaseCommandTests {
    /// Fills `books` until its dictionary is trained, then writes `book:z` and the collection
    /// record `shelf/k` compressed, and closes it.
    func writeCompressed(_ fixture: StoreFixture) throws {
        var configuration = fixture.configuration()
        configuration.recordCompression = .zstd(dictionarySampleCount: 100)
        let store = try ModelStore(name: "books", policy: .never, configuration: configuration)
        defer { try? store.close() }
        for index in 0..<100 {
            var book = Book.sample("A history of mathematics, volume \(index)")
            book.subtitle = "Collected notes on \(index % 7) subjects, with exercises and answers"
            try store.set(book, forKey: "book:\(index)")
        }
        store.database.waitForMaintenance()
        var book = Book.sample("The compressed one: a history of mathematics")
        book.subtitle = "Collected notes on 3 subjects, with exercises and answers"
        try store.set(book, forKey: "book:z")
        try store.collection("shelf").set(book, forKey: "k")
        let record = try store.database.run { engine in
            try Array("book:z".utf8).withUnsafeBytes { try engine.withValue(forKey: $0) { Array($0!) } }
        }
        #expect(record[1] & RecordHeader.compressedPayloadFlag != 0)
    }

    @Test func getDumpKeysStatsAndCollectionsShowDecodedModels() throws {
        let fixture = StoreFixture()
        try writeCompressed(fixture)

        let get = try ToolProcess.modelstore(["get", "books", "book:z", "--json"] + fixture.rootArguments)
        #expect(get.status == 0, "\(get.stdout)")
        let document = try #require(try get.json() as? [String: Any])
        let value = try #require(document["value"] as? [String: Any], "\(get.stdout)")
        #expect(value["title"] as? String == "The compressed one: a history of mathematics")
        #expect(value["pages"] as? Int == 42)

        let inShelf = try ToolProcess.modelstore(
            ["get", "books", "k", "--collection", "shelf", "--json"] + fixture.rootArguments)
        #expect(inShelf.status == 0, "\(inShelf.stdout)")
        let shelfValue = try #require((try inShelf.json() as? [String: Any])?["value"] as? [String: Any])
        #expect(shelfValue["title"] as? String == "The compressed one: a history of mathematics")

        let dump = try ToolProcess.modelstore(["dump", "books"] + fixture.rootArguments)
        #expect(dump.status == 0)
        #expect(dump.lines.count == 101)
        for line in dump.lines {
            let record = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let title = (record["value"] as? [String: Any])?["title"] as? String
            #expect(title?.contains("history of mathematics") == true, "\(line)")
            #expect(record["payloadBase64"] == nil, "\(line)")
        }

        let keys = try ToolProcess.modelstore(["keys", "books"] + fixture.rootArguments)
        #expect(keys.status == 0)
        #expect(keys.lines.count == 101)
        let stats = try ToolProcess.modelstore(["stats", "books"] + fixture.rootArguments)
        #expect(stats.status == 0, "\(stats.stdout)")
        let collections = try ToolProcess.modelstore(["collections", "books"] + fixture.rootArguments)
        #expect(collections.status == 0)
        #expect(collections.stdout.contains("shelf"))
    }
}
