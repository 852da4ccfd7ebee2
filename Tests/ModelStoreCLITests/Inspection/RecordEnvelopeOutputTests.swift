import Foundation
import Testing
@testable import ModelStore
import ModelStoreTestSupport

/// `get` and `dump` show each record's format version, checksum verdict and metadata.
@Suite struct RecordEnvelopeOutputTests {
    struct HTTPInfo: Codable, Sendable {
        var etag: String
    }

    /// Writes `book:1` with metadata into `books`, and `book:2` with a byte of its payload
    /// flipped behind ModelStore's back when `damaged` is set.
    func writeBooks(_ fixture: StoreFixture, damaged: Bool = false) throws {
        let store = try fixture.open("books")
        defer { try? store.close() }
        try store.set(Book.sample(), forKey: "book:1", metadata: HTTPInfo(etag: "\"abc\""))
        guard damaged else { return }
        try store.set(Book.sample(), forKey: "book:2")
        try store.database.write { engine in
            try Array("book:2".utf8).withUnsafeBytes { key in
                var record = try engine.withValue(forKey: key) { Array($0!) }
                record[record.count - 2] ^= 0x01
                try record.withUnsafeBytes { try engine.put(key: key, value: $0, sync: false) }
            }
        }
    }

    @Test func getJSONShowsFormatChecksumAndMetadata() throws {
        let fixture = StoreFixture()
        try writeBooks(fixture)
        let result = try ToolProcess.modelstore(["get", "books", "book:1", "--json"] + fixture.rootArguments)
        #expect(result.status == 0)
        let document = try #require(try result.json() as? [String: Any])
        #expect(document["formatVersion"] as? Int == 3)
        #expect(document["checksum"] as? String == "valid")
        #expect((document["metadata"] as? [String: Any])?["etag"] as? String == "\"abc\"")
        #expect(document["metadataShownAs"] as? String == "json")
        #expect(document["metadataCodec"] as? String == "json")
        #expect((document["value"] as? [String: Any])?["title"] as? String == "Notes")
    }

    @Test func getTextShowsFormatAndMetadataLines() throws {
        let fixture = StoreFixture()
        try writeBooks(fixture)
        let result = try ToolProcess.modelstore(["get", "books", "book:1"] + fixture.rootArguments)
        #expect(result.status == 0)
        #expect(result.stdout.contains("format       3 (checksum valid)"))
        #expect(result.stdout.contains("metadata     {\"etag\":\"\\\"abc\\\"\"} (JSON, as stored)"))
    }

    @Test func getRefusesARecordThatFailsItsChecksum() throws {
        let fixture = StoreFixture()
        try writeBooks(fixture, damaged: true)
        let result = try ToolProcess.modelstore(["get", "books", "book:2"] + fixture.rootArguments)
        #expect(result.status == 1)
        #expect(result.stderr.contains("fails its checksum"))
        #expect(result.stdout.isEmpty)
    }

    @Test func dumpShowsEnvelopesAndReportsAChecksumFailureOnItsOwnLine() throws {
        let fixture = StoreFixture()
        try writeBooks(fixture, damaged: true)
        let result = try ToolProcess.modelstore(["dump", "books"] + fixture.rootArguments)
        #expect(result.status == 1)
        #expect(result.lines.count == 2)
        let first = try #require(try JSONSerialization.jsonObject(with: Data(result.lines[0].utf8)) as? [String: Any])
        #expect(first["formatVersion"] as? Int == 3)
        #expect(first["checksum"] as? String == "valid")
        #expect((first["metadata"] as? [String: Any])?["etag"] as? String == "\"abc\"")
        let second = try #require(try JSONSerialization.jsonObject(with: Data(result.lines[1].utf8)) as? [String: Any])
        #expect(second["key"] as? String == "book:2")
        #expect((second["error"] as? String)?.contains("fails its checksum") == true)
    }
}
