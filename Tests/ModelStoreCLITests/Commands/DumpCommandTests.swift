import Foundation
import ModelStore
import Testing
import ModelStoreTestSupport

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

    @Test func recordsOfOtherCodecsAreDumpedAsBase64AmongTheJSONOnes() throws {
        let fixture = StoreFixture()
        try fixture.write(["a": Book.sample(), "d": Book.sample()], in: "books")
        try fixture.write(["b": Book.sample(), "c": Book.sample()], in: "books", codec: ReversedJSONCodec())

        let result = try ToolProcess.modelstore(["dump", "books"] + fixture.rootArguments)
        #expect(result.status == 0)
        let records = try result.lines.map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
        #expect(records.compactMap { $0["key"] as? String } == ["a", "b", "c", "d"])
        #expect(records.compactMap { $0["codec"] as? String } == ["json", "custom(7)", "custom(7)", "json"])
        #expect(records[1]["payloadBase64"] is String)
        #expect(records[0]["payloadBase64"] == nil)
    }

    @Test func binaryAndPropertyListRecordsAreLabelledByTheirOwnCodec() throws {
        let fixture = StoreFixture()
        try fixture.write(["a": Book.sample()], in: "books", codec: BinaryModelCodec())
        try fixture.write(["b": Book.sample("Plist")], in: "books", codec: PropertyListModelCodec())

        let result = try ToolProcess.modelstore(["dump", "books"] + fixture.rootArguments)
        #expect(result.status == 0)
        let records = try result.lines.map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
        #expect(records.compactMap { $0["codec"] as? String } == ["binary", "propertyList"])
        #expect(records.compactMap { $0["shownAs"] as? String } == ["base64", "jsonConvertedFromPropertyList"])
        #expect(records[0]["payloadBase64"] is String)
        #expect((records[1]["value"] as? [String: Any])?["title"] as? String == "Plist")
    }

    @Test func jsonRecordWhosePayloadDoesNotParseIsAnErrorLineNotBase64() throws {
        let fixture = StoreFixture()
        try fixture.write(["a": Book.sample()], in: "books")
        try fixture.write(["b": Book.sample()], in: "books", codec: TruncatedJSONCodec())

        let result = try ToolProcess.modelstore(["dump", "books"] + fixture.rootArguments)
        #expect(result.status == 1)
        #expect(result.lines.count == 2)
        let damaged = try #require(try JSONSerialization.jsonObject(with: Data(result.lines[1].utf8)) as? [String: Any])
        #expect(damaged["key"] as? String == "b")
        #expect(damaged["error"] is String)
        #expect(damaged["payloadBase64"] == nil)
        #expect(result.stderr.contains("1 record of 2 could not be read"))
    }

    @Test func dumpOfAnEmptyDatabasePrintsNothing() throws {
        let fixture = StoreFixture()
        try fixture.write([String: Book](), in: "books")
        let result = try ToolProcess.modelstore(["dump", "books"] + fixture.rootArguments)
        #expect(result.status == 0)
        #expect(result.stdout.isEmpty)
    }
}
