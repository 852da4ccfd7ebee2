#if Encryption
import Foundation
import Testing
@testable import ModelStore
import ModelStoreTestSupport

/// A sealed record's tags are bound to its seal: tags that another LevelDB client wrote into a
/// genuine record (checksum recomputed, tag index entry added) never make an encrypting store's
/// `removeObjects(taggedWith:)` delete it.
@Suite("Encryption: forged tags")
struct ForgedTagTests {
    @Test("A genuine record whose tags section was changed to carry a tag is not removed by that tag")
    func forgedTag() throws {
        let fixture = Fixture()
        let store = try Sealing.open(fixture, key: Sealing.first)
        defer { try? store.close() }
        try store.set(EncryptionRoundTripTests.note, forKey: "victim", tags: ["a"])
        try store.set(EncryptionRoundTripTests.note, forKey: "tagged", tags: ["t"])
        var raw = try #require(try rawRecord(store, "victim"))
        let tags = try #require(raw.withUnsafeBytes { RecordHeader(parsing: $0) }).tagsRange
        let at = try #require(raw[tags].lastIndex(of: UInt8(ascii: "a")))
        raw[at] = UInt8(ascii: "t")
        try putRawRecord(store, "victim", in: nil, try Sealing.rechecksummed(raw, forKey: "victim"))
        let entry = Array("victim".utf8).withUnsafeBytes { TagIndex.entryKey(prefix: TagIndex.prefix(of: "t"), recordKey: $0) }
        try store.database.write { engine in
            try entry.withUnsafeBytes { key in try [UInt8]().withUnsafeBytes { try engine.put(key: key, value: $0, sync: false) } }
        }
        store.database.invalidate("victim")

        #expect(try store.removeObjects(taggedWith: "t") == 1)
        #expect(try rawRecord(store, "tagged") == nil)
        #expect(try rawRecord(store, "victim") != nil, "a record with a forged tag was removed by it")
        // The forged record is refused by reads, never returned.
        #expect(throws: ModelStoreError.self) { _ = try store.object(EncryptionRoundTripTests.Note.self, forKey: "victim") }
    }
}
#endif
