#if Encryption
import Foundation
import Testing
@testable import ModelStore
import ModelStoreTestSupport

/// An empty database adopts the key of the first store that opens it with one, but never while a
/// store without a key has it open in this process: that store would go on writing plain
/// records into a database marked encrypted.
@Suite("Encryption: an empty database adopting a key")
struct EncryptionAdoptionTests {
    @Test("A key is refused as notEncrypted while a store without one has the empty database open; adopted once it closed")
    func keylessStoreOpen() throws {
        let fixture = Fixture()
        let plain = try Sealing.open(fixture, key: nil)
        #expect(EncryptionMismatchTests.mismatch(fixture, key: .aes256GCM(key: Sealing.first)) == .notEncrypted)
        try plain.set(1, forKey: "one")
        #expect(try plain.object(Int.self, forKey: "one") == 1)
        #expect(try plain.database.run { try EncryptionMarker.read(from: $0, path: "") } == nil)
        try plain.close()

        let empty = Fixture()
        try Sealing.open(empty, key: nil).close()
        let keyed = try Sealing.open(empty, key: Sealing.first)
        defer { try? keyed.close() }
        try keyed.set(2, forKey: "two")
        #expect(try keyed.object(Int.self, forKey: "two") == 2)
        // A second store with the same key shares the database.
        let again = try Sealing.open(empty, key: Sealing.first)
        #expect(try again.object(Int.self, forKey: "two") == 2)
        try again.close()
    }

    @Test("Refused opens (another key, no key, a key on a plain database with records, an unfinished re-keying) change no key or value, system records included")
    func refusedOpensChangeNoEntry() throws {
        let encrypted = Fixture()
        let store = try Sealing.open(encrypted, key: Sealing.first, policy: .low)
        try store.set(EncryptionRoundTripTests.note, forKey: "k", expiresAfter: 60, tags: ["t"])
        try store.set(EncryptionRoundTripTests.note, forKey: "expired", expiresAfter: 1)
        try store.close()
        encrypted.clock.advance(by: 3_600)  // "expired" has expired: no refused open may purge it
        let before = try RekeyAttackTests.contents(encrypted)
        #expect(EncryptionMismatchTests.mismatch(encrypted, key: .aes256GCM(key: Sealing.second)) == .wrongKey)
        #expect(EncryptionMismatchTests.mismatch(encrypted, key: .none) == .keyRequired)
        #expect(try RekeyAttackTests.contents(encrypted) == before)

        let plain = Fixture()
        let plainStore = try Sealing.open(plain, key: nil)
        try plainStore.set(1, forKey: "one")
        try plainStore.close()
        let plainBefore = try RekeyAttackTests.contents(plain)
        #expect(EncryptionMismatchTests.mismatch(plain, key: .aes256GCM(key: Sealing.first)) == .notEncrypted)
        #expect(try RekeyAttackTests.contents(plain) == plainBefore)
    }

    @Test("A snapshot of a store without a key also keeps the empty database from adopting one")
    func keylessSnapshotOpen() throws {
        let fixture = Fixture()
        let plain = try Sealing.open(fixture, key: nil)
        let snapshot = try plain.snapshot()
        try plain.close()
        #expect(EncryptionMismatchTests.mismatch(fixture, key: .aes256GCM(key: Sealing.first)) == .notEncrypted)
        snapshot.close()
        #expect(EncryptionMismatchTests.mismatch(fixture, key: .aes256GCM(key: Sealing.first)) == nil)
    }
}
#endif
