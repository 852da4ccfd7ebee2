import Foundation
import ModelStore
import Testing
import ModelStoreTestSupport

/// `modelstore get`.
@Suite struct GetCommandTests {
    /// The metadata part of `get --json`.
    struct Record: Decodable {
        let key: String
        let codec: String
        let storedAt: String
        let expiresAt: String?
        let expired: Bool
        let byteCount: Int
    }

    @Test func printsTheModelAndItsMetadataAsJSON() throws {
        let fixture = StoreFixture()
        try fixture.write(["book:1": Book.sample("Notes")], in: "books")

        let result = try ToolProcess.modelstore(["get", "books", "book:1", "--json"] + fixture.rootArguments)
        #expect(result.status == 0)
        let record = try result.decode(Record.self)
        #expect(record.key == "book:1")
        #expect(record.codec == "json")
        #expect(record.expiresAt == nil)
        #expect(!record.expired)
        #expect(record.byteCount > 11)
        let storedAt = try #require(ISO8601DateFormatter().date(from: record.storedAt))
        #expect(abs(storedAt.timeIntervalSince(StoreFixture.now)) < 1)

        let document = try #require(try result.json() as? [String: Any])
        let value = try #require(document["value"] as? [String: Any])
        #expect(value["title"] as? String == "Notes")
        #expect(value["pages"] as? Int == 42)
        #expect(value["price"] as? Double == 12.5)
        #expect(value["tags"] as? [String] == ["math", "history"])
    }

    @Test func plainOutputShowsMetadataThenPrettyJSON() throws {
        let fixture = StoreFixture()
        try fixture.write(["book:1": Book.sample("Notes")], in: "books")
        let result = try ToolProcess.modelstore(["get", "books", "book:1"] + fixture.rootArguments)
        #expect(result.status == 0)
        #expect(result.lines[0] == "key          book:1")
        #expect(result.stdout.contains("codec        json"))
        #expect(result.stdout.contains("expires at   never"))
        #expect(result.stdout.contains("\"title\" : \"Notes\""))
    }

    @Test func expiredRecordIsShownAsExpiredAndLeftInPlace() throws {
        let fixture = StoreFixture()
        try fixture.write(["book:1": Book.sample()], in: "books", storedAgo: 7_200)

        let result = try ToolProcess.modelstore(
            ["get", "books", "book:1", "--policy", "middle", "--json"] + fixture.rootArguments)
        #expect(result.status == 0)
        let record = try result.decode(Record.self)
        #expect(record.expired)
        #expect(record.expiresAt != nil)

        let store = try fixture.open("books")
        defer { try? store.close() }
        #expect(try store.count() == 1)
    }

    @Test func propertyListRecordsAreShownConvertedToJSON() throws {
        let fixture = StoreFixture()
        try fixture.write(["book:1": Book.sample("Plist")], in: "books", codec: PropertyListModelCodec())
        let result = try ToolProcess.modelstore(["get", "books", "book:1", "--json"] + fixture.rootArguments)
        #expect(result.status == 0)
        let document = try #require(try result.json() as? [String: Any])
        #expect(document["codec"] as? String == "propertyList")
        #expect((document["value"] as? [String: Any])?["title"] as? String == "Plist")
    }

    @Test func recordOfACodecTheToolCannotDecodeIsShownAsBase64WithANote() throws {
        let fixture = StoreFixture()
        try fixture.write(["book:1": Book.sample("Custom")], in: "books", codec: ReversedJSONCodec())

        let result = try ToolProcess.modelstore(["get", "books", "book:1", "--json"] + fixture.rootArguments)
        #expect(result.status == 0)
        let document = try #require(try result.json() as? [String: Any])
        #expect(document["codec"] as? String == "custom(7)")
        #expect(document["value"] is NSNull)
        #expect((document["note"] as? String)?.contains("cannot decode") == true)
        let base64 = try #require(document["payloadBase64"] as? String)
        let payload = try #require(Data(base64Encoded: base64))
        let book = try JSONDecoder().decode(Book.self, from: Data(payload.reversed()))
        #expect(book.title == "Custom")

        let text = try ToolProcess.modelstore(["get", "books", "book:1"] + fixture.rootArguments)
        #expect(text.status == 0)
        #expect(text.stdout.contains("codec        custom(7)"))
        #expect(text.stdout.contains("note         written by the custom(7) codec"))
    }

    @Test func binaryRecordIsLabelledBinaryAndShownAsBase64() throws {
        let fixture = StoreFixture()
        try fixture.write(["book:1": Book.sample("Binary")], in: "books", codec: BinaryModelCodec())

        let result = try ToolProcess.modelstore(["get", "books", "book:1", "--json"] + fixture.rootArguments)
        #expect(result.status == 0)
        let document = try #require(try result.json() as? [String: Any])
        #expect(document["codec"] as? String == "binary")
        #expect(document["shownAs"] as? String == "base64")
        #expect(document["value"] is NSNull)
        let base64 = try #require(document["payloadBase64"] as? String)
        let payload = try #require(Data(base64Encoded: base64))
        #expect(try BinaryModelCodec().decode(Book.self, from: payload) == Book.sample("Binary"))
    }

    @Test func plainOutputSaysWhichRepresentationIsShown() throws {
        let fixture = StoreFixture()
        try fixture.write(["book:1": Book.sample("Binary")], in: "books", codec: BinaryModelCodec())
        try fixture.write(["book:2": Book.sample("Plist")], in: "books", codec: PropertyListModelCodec())
        try fixture.write(["book:3": Book.sample("JSON")], in: "books")

        let binary = try ToolProcess.modelstore(["get", "books", "book:1"] + fixture.rootArguments)
        #expect(binary.lines.contains("codec        binary"))
        #expect(binary.lines.contains { $0.hasPrefix("shown as     base64 of the encoded bytes") })
        #expect(!binary.stdout.contains("converted to JSON"))
        let plist = try ToolProcess.modelstore(["get", "books", "book:2"] + fixture.rootArguments)
        #expect(plist.lines.contains("codec        propertyList"))
        #expect(plist.lines.contains("shown as     JSON, converted from the property list"))
        let json = try ToolProcess.modelstore(["get", "books", "book:3"] + fixture.rootArguments)
        #expect(json.lines.contains("shown as     JSON, as stored"))
    }

    @Test func jsonOutputSaysWhichRepresentationIsShown() throws {
        let fixture = StoreFixture()
        try fixture.write(["book:1": Book.sample()], in: "books")
        try fixture.write(["book:2": Book.sample()], in: "books", codec: PropertyListModelCodec())
        try fixture.write(["book:3": Book.sample()], in: "books", codec: ReversedJSONCodec())
        var shown: [String] = []
        for key in ["book:1", "book:2", "book:3"] {
            let result = try ToolProcess.modelstore(["get", "books", key, "--json"] + fixture.rootArguments)
            let document = try #require(try result.json() as? [String: Any])
            shown.append(try #require(document["shownAs"] as? String))
        }
        #expect(shown == ["json", "jsonConvertedFromPropertyList", "base64"])
    }

    @Test func missingKeyExitsWithNotFound() throws {
        let fixture = StoreFixture()
        try fixture.write(["book:1": Book.sample()], in: "books")
        let result = try ToolProcess.modelstore(["get", "books", "book:2"] + fixture.rootArguments)
        #expect(result.status == 3)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("no record with key \"book:2\" in database \"books\""))
    }

    @Test func missingDatabaseExitsWithNotFoundAndCreatesNothing() throws {
        let fixture = StoreFixture()
        let result = try ToolProcess.modelstore(["get", "ghost", "key"] + fixture.rootArguments)
        #expect(result.status == 3)
        #expect(result.stderr.contains("no database named \"ghost\""))
        #expect(!fixture.contains("ghost"))
    }

    @Test func folderWithoutTheMarkerIsNotADatabase() throws {
        let fixture = StoreFixture()
        try FileManager.default.createDirectory(
            at: fixture.root.appendingPathComponent("photos"), withIntermediateDirectories: true)
        let result = try ToolProcess.modelstore(["get", "photos", "key"] + fixture.rootArguments)
        #expect(result.status == 3)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: fixture.root.appendingPathComponent("photos").path)
                .isEmpty)
    }
}
