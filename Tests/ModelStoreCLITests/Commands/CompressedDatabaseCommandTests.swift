import Foundation
import Testing
@testable import ModelStore
import ModelStoreTestSupport

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

    @Test func getSaysARecordWasStoredCompressedAndShowsBothSizes() throws {
        let fixture = StoreFixture()
        try writeCompressed(fixture)
        let store = try fixture.open("books")
        let book = try #require(try store.object(Book.self, forKey: "book:z"))
        let model = try ModelStore.Configuration().codec.encode(book)
        try store.set(Book.sample("plain"), forKey: "plain")
        try store.close()

        let json = try ToolProcess.modelstore(["get", "books", "book:z", "--json"] + fixture.rootArguments)
        #expect(json.status == 0)
        let document = try #require(try json.json() as? [String: Any])
        let stored = try #require(document["byteCount"] as? Int)
        #expect(document["compressed"] as? Bool == true, "\(json.stdout)")
        let uncompressed = try #require(document["uncompressedModelByteCount"] as? Int, "\(json.stdout)")
        #expect(uncompressed == model.count)
        #expect(uncompressed > stored - 15)  // the model alone, uncompressed, outweighs the compressed record

        let text = try ToolProcess.modelstore(["get", "books", "book:z"] + fixture.rootArguments)
        #expect(text.status == 0)
        let size = try #require(text.lines.first { $0.hasPrefix("size ") })
        #expect(size.contains("compressed"), "\(size)")
        #expect(size.contains("\(stored) bytes") && size.contains("\(uncompressed) bytes"), "\(size)")
        let shownAs = try #require(text.lines.first { $0.hasPrefix("shown as ") })
        #expect(shownAs.contains("decompressed"), "\(shownAs)")

        // A record stored uncompressed says so, with no second size.
        let plain = try ToolProcess.modelstore(["get", "books", "plain", "--json"] + fixture.rootArguments)
        let plainDocument = try #require(try plain.json() as? [String: Any])
        #expect(plainDocument["compressed"] as? Bool == false)
        #expect(plainDocument["uncompressedModelByteCount"] == nil)
    }
}
