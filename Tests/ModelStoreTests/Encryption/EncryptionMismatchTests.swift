#if Encryption
import Foundation
import Testing
@testable import ModelStore
import ModelStoreTestSupport

/// A store whose key does not fit the database is refused with the case that says how, and
/// changes nothing; sealed records that were tampered with or moved never open.
@Suite("Encryption: wrong keys, tampering and moved values")
struct EncryptionMismatchTests {
    typealias Note = EncryptionRoundTripTests.Note

    /// Opens `name` with `key` and returns the mismatch it was refused with (nil: it opened).
    static func mismatch(
        _ fixture: Fixture, name: String = "db", key: RecordEncryption
    ) -> ModelStoreError.EncryptionMismatch? {
        var configuration = fixture.quietConfiguration
        configuration.encryption = key
        do {
            let store = try ModelStore(name: name, policy: .never, configuration: configuration)
            try? store.close()
            return nil
        } catch ModelStoreError.encryptionMismatch(_, let mismatch) {
            return mismatch
        } catch {
            Issue.record("unexpected \(error)")
            return nil
        }
    }

    @Test("Opening with another key, without a key, or a plain database with a key is refused, files unchanged")
    func refusedOpens() throws {
        let fixture = Fixture()
        let encrypted = try Sealing.open(fixture, key: Sealing.first)
        try encrypted.set(EncryptionRoundTripTests.note, forKey: "k")
        try encrypted.close()
        let url = fixture.directory.url.appendingPathComponent("db")
        // Reopened once so LevelDB's log is settled; every later refused open must leave the
        // records and the marker as they are.
        try Sealing.open(fixture, key: Sealing.first).close()
        let before = try Sealing.files(of: url).filter { $0.key.hasSuffix(".ldb") || $0.key.hasSuffix(".log") }
        #expect(Self.mismatch(fixture, key: .aes256GCM(key: Sealing.second)) == .wrongKey)
        #expect(Self.mismatch(fixture, key: .none) == .keyRequired)
        let after = try Sealing.files(of: url).filter { $0.key.hasSuffix(".ldb") || $0.key.hasSuffix(".log") }
        #expect(after.values.reduce(0) { $0 + $1.count } == before.values.reduce(0) { $0 + $1.count })
        let reopened = try Sealing.open(fixture, key: Sealing.first)
        #expect(try reopened.object(Note.self, forKey: "k") == EncryptionRoundTripTests.note)
        try reopened.close()

        let plainFixture = Fixture()
        let plain = try Sealing.open(plainFixture, key: nil)
        try plain.set(1, forKey: "one")
        try plain.close()
        #expect(Self.mismatch(plainFixture, key: .aes256GCM(key: Sealing.first)) == .notEncrypted)
        let plainAgain = try Sealing.open(plainFixture, key: nil)
        #expect(try plainAgain.object(Int.self, forKey: "one") == 1)
        let marker = try plainAgain.database.run { engine in try EncryptionMarker.read(from: engine, path: "") }
        #expect(marker == nil)
    }

    @Test("An empty database opened with a key becomes encrypted; the error messages say what to do")
    func emptyDatabaseAdoptsTheKey() throws {
        let fixture = Fixture()
        try Sealing.open(fixture, key: nil).close()
        let store = try Sealing.open(fixture, key: Sealing.first)
        try store.set(1, forKey: "one")
        try store.close()
        #expect(Self.mismatch(fixture, key: .none) == .keyRequired)
        let message = ModelStoreError.encryptionMismatch(path: "/p", mismatch: .keyRequired).description
        #expect(message.contains("aes256GCM"))
        #expect(ModelStoreError.encryptionMismatch(path: "/p", mismatch: .notEncrypted).description.contains("rekey"))
    }

    @Test("A key that is not 256 bits is refused before anything is created")
    func shortKey() throws {
        let fixture = Fixture()
        var configuration = fixture.quietConfiguration
        configuration.encryption = .aes256GCM(key: Sealing.shortKey)
        #expect(throws: ModelStoreError.self) { try ModelStore(name: "db", policy: .never, configuration: configuration) }
        #expect(!FileManager.default.fileExists(atPath: fixture.directory.url.appendingPathComponent("db").path))
    }

    @Test("A sealed value moved to another key or collection, checksum recomputed, does not open")
    func movedValues() throws {
        let fixture = Fixture()
        let store = try Sealing.open(fixture, key: Sealing.first)
        try store.set(EncryptionRoundTripTests.note, forKey: "a")
        let raw = try #require(try rawRecord(store, "a"))
        try putRawRecord(store, "b", in: nil, try Sealing.rechecksummed(raw, forKey: "b"))
        try putRawRecord(store, "a", in: "other", try Sealing.rechecksummed(raw, forKey: "a", in: "other"))
        // Canonically equivalent spellings are different keys, bytes and associated data.
        try store.set(EncryptionRoundTripTests.note, forKey: "caf\u{E9}")
        let composed = try #require(try rawRecord(store, "caf\u{E9}"))
        try putRawRecord(store, "cafe\u{301}", in: nil, try Sealing.rechecksummed(composed, forKey: "cafe\u{301}"))
        // Without a new checksum the move is caught by the checksum already.
        try putRawRecord(store, "c", in: nil, raw)
        for (key, collection) in [("b", nil), ("a", "other"), ("c", nil), ("cafe\u{301}", nil)] as [(String, String?)] {
            store.database.invalidate(key)
            #expect(throws: ModelStoreError.self) {
                if let collection {
                    _ = try store.collection(collection).object(Note.self, forKey: key)
                } else {
                    _ = try store.object(Note.self, forKey: key)
                }
            }
        }
        #expect(try store.object(Note.self, forKey: "a") == EncryptionRoundTripTests.note)
    }

    @Test("Every single changed byte of a sealed record, checksum recomputed, is refused: never a wrong value")
    func tamperedBytes() throws {
        let fixture = Fixture()
        let store = try Sealing.open(fixture, key: Sealing.first, policy: .never)
        try store.set(
            EncryptionRoundTripTests.note, forKey: "k", metadata: EncryptionRoundTripTests.stamp, tags: ["t"])
        let raw = try #require(try rawRecord(store, "k"))
        var wrong: [Int] = []
        for offset in 0..<raw.count where !(RecordHeader.checksumOffset..<RecordHeader.checksummedFrom).contains(offset) {
            var damaged = raw
            damaged[offset] ^= 0x01
            try putRawRecord(store, "k", in: nil, try Sealing.rechecksummed(damaged, forKey: "k"))
            store.database.invalidate("k")
            // A throw, or nothing (a flipped flag can make the record look expired): never a value.
            if let read = try? store.entry(Note.self, forKey: "k") { wrong.append(offset); _ = read }
        }
        #expect(wrong.isEmpty, "bytes \(wrong) changed and the record still opened")
    }

    @Test("A sealed record copied into a plain database is refused as damaged, never its ciphertext decoded")
    func sealedRecordInPlainDatabase() throws {
        let fixture = Fixture()
        let sealed = try Sealing.open(fixture, "sealed", key: Sealing.first)
        try sealed.set(EncryptionRoundTripTests.note, forKey: "k")
        let raw = try #require(try rawRecord(sealed, "k"))
        let plain = try Sealing.open(fixture, key: nil)
        try putRawRecord(plain, "k", in: nil, raw)
        #expect {
            try plain.object(Note.self, forKey: "k")
        } throws: { error in
            guard case ModelStoreError.corrupted = error else { return false }
            return true
        }
    }

    @Test("A plain record written into an encrypted database is refused, not trusted")
    func plainRecordInEncryptedDatabase() throws {
        let fixture = Fixture()
        let plain = try Sealing.open(fixture, "plain", key: nil)
        try plain.set(EncryptionRoundTripTests.note, forKey: "k")
        let raw = try #require(try rawRecord(plain, "k"))
        let store = try Sealing.open(fixture, key: Sealing.first)
        try putRawRecord(store, "k", in: nil, raw)
        #expect(throws: ModelStoreError.self) { try store.object(Note.self, forKey: "k") }
    }
}
#endif
