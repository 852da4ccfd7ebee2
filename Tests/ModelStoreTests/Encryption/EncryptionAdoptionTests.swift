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
