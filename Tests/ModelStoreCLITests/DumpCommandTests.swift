import Foundation
import ModelStore
import Testing

/// `modelstore dump`.
@Suite struct DumpCommandTests {
    @Test func writesOneJSONLinePerRecordInKeyOrder() throws {
        let fixture = StoreFixture()
        let books = Dictionary(uniqueKeysWithValues: (1...250).map { ("book:\(1000 + $0)", Book.sample("Book \($0)")) })
        try fixture.write(books, in: "books")

        let result = try ToolProcess.modelstore(["dump", "books"] + fixture.rootArguments)
        #expect(result.status == 0)
        #expect(result.lines.count == 250)
        let records = try result.lines.map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
        #expect(records.compactMap { $0["key"] as? String } == books.keys.sorted())
        let first = try #require(records.first)
        #expect((first["value"] as? [String: Any])?["title"] as? String == "Book 1")
        #expect(first["storedAt"] is String)
        #expect(first["expired"] as? Bool == false)
    }

    @Test func prefixAndPolicyApply() throws {
        let fixture = StoreFixture()
        try fixture.write(["a:1": Book.sample(), "b:1": Book.sample()], in: "books", storedAgo: 7_200)
        let result = try ToolProcess.modelstore(
            ["dump", "books", "--prefix", "a:", "--policy", "middle"] + fixture.rootArguments)
        #expect(result.status == 0)
        #expect(result.lines.count == 1)
        let record = try #require(try JSONSerialization.jsonObject(with: Data(result.lines[0].utf8)) as? [String: Any])
        #expect(record["key"] as? String == "a:1")
        #expect(record["expired"] as? Bool == true)
    }

    @Test func undecodableRecordsBecomeErrorLinesAndTheDumpGoesOn() throws {
        let fixture = StoreFixture()
        try fixture.write(["a": Book.sample(), "c": Book.sample()], in: "books")
        try fixture.write(["b": Book.sample()], in: "books", codec: ReversedJSONCodec())

        let result = try ToolProcess.modelstore(["dump", "books"] + fixture.rootArguments)
        #expect(result.status == 1)
        #expect(result.lines.count == 3)
        let middle = try #require(try JSONSerialization.jsonObject(with: Data(result.lines[1].utf8)) as? [String: Any])
        #expect(middle["key"] as? String == "b")
        #expect((middle["error"] as? String)?.contains("custom(7)") == true)
        #expect(result.stderr.contains("1 record of 3 could not be decoded"))
    }

    @Test func dumpOfAnEmptyDatabasePrintsNothing() throws {
        let fixture = StoreFixture()
        try fixture.write([String: Book](), in: "books")
        let result = try ToolProcess.modelstore(["dump", "books"] + fixture.rootArguments)
        #expect(result.status == 0)
        #expect(result.stdout.isEmpty)
    }
}
