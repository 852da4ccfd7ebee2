#if Encryption
import Foundation
import Testing
@testable import ModelStore
import ModelStoreTestSupport

/// A sealed record's deadline and storedAt are bound to its seal: bytes that another LevelDB
/// client changed (a checksum is no secret) never make an encrypting store delete a record as
/// expired. Reads report the record as damaged; sweeps and limits leave it.
@Suite("Encryption: forged deadlines and moved expired values")
struct ForgedExpiryTests {
    typealias Note = EncryptionRoundTripTests.Note

    /// `raw` with its deadline (a version-3 record with flag bit 0) set before it was stored,
    /// its checksum recomputed for `key`.
    static func forgedExpired(_ raw: [UInt8], forKey key: String) throws -> [UInt8] {
        var forged = raw
        let storedAt = forged.withUnsafeBytes { Double(bitPattern: UInt64(littleEndian: $0.loadUnaligned(fromByteOffset: 7, as: UInt64.self))) }
        #expect(forged[1] & 1 != 0)
        let deadline = (storedAt - 60).bitPattern.littleEndian
        withUnsafeBytes(of: deadline) { bytes in for index in 0..<8 { forged[15 + index] = bytes[index] } }
        return try Sealing.rechecksummed(forged, forKey: key)
    }

    @Test("A genuine record whose deadline was moved into the past reads as damaged and stays stored")
    func forgedDeadline() throws {
        let fixture = Fixture()
        let store = try Sealing.open(fixture, key: Sealing.first)
        defer { try? store.close() }
        for key in ["object", "entry", "contains", "sweep"] {
            try store.set(EncryptionRoundTripTests.note, forKey: key, expiresAfter: 3_600)
            let raw = try #require(try rawRecord(store, key))
            try putRawRecord(store, key, in: nil, try Self.forgedExpired(raw, forKey: key))
            store.database.invalidate(key)
        }
        #expect(throws: ModelStoreError.self) { _ = try store.object(Note.self, forKey: "object") }
        #expect(throws: ModelStoreError.self) { _ = try store.entry(Note.self, forKey: "entry") }
        // Passes that judge envelopes count a record whose seal does not hold as present.
        #expect(try store.contains("contains"))
        #expect(try store.count() == 4)
        #expect(try store.keys().collect().count == 4)
        _ = try store.removeExpiredObjects()
        for key in ["object", "entry", "contains", "sweep"] {
            #expect(try rawRecord(store, key) != nil, "\(key): a record with a forged deadline was deleted")
        }
    }

    @Test("A sealed value that expired, moved over another key with its checksum recomputed, is refused, not purged")
    func movedExpiredValue() throws {
        let fixture = Fixture()
        let store = try Sealing.open(fixture, key: Sealing.first)
        defer { try? store.close() }
        try store.set(EncryptionRoundTripTests.note, forKey: "short", expiresAfter: 1)
        try store.set(EncryptionRoundTripTests.note, forKey: "kept")
        let raw = try #require(try rawRecord(store, "short"))
        try putRawRecord(store, "kept", in: nil, try Sealing.rechecksummed(raw, forKey: "kept"))
        store.database.invalidate("kept")
        fixture.clock.advance(by: 60)
        #expect(throws: ModelStoreError.self) { _ = try store.object(Note.self, forKey: "kept") }
        #expect(try rawRecord(store, "kept") != nil)
        // The genuine expired record is still purged by a read.
        #expect(try store.object(Note.self, forKey: "short") == nil)
        #expect(try rawRecord(store, "short") == nil)
        #expect(try store.removeExpiredObjects() == 0)
        #expect(try rawRecord(store, "kept") != nil)
    }

    @Test("A plain store still purges expired records by their checksum alone")
    func plainStoreUnchanged() throws {
        let fixture = Fixture()
        let store = try Sealing.open(fixture, key: nil)
        defer { try? store.close() }
        try store.set(EncryptionRoundTripTests.note, forKey: "a", expiresAfter: 1)
        try store.set(EncryptionRoundTripTests.note, forKey: "b", expiresAfter: 1)
        fixture.clock.advance(by: 60)
        #expect(try store.object(Note.self, forKey: "a") == nil)
        #expect(try rawRecord(store, "a") == nil)
        #expect(try store.removeExpiredObjects() == 1)
    }
}
#endif
