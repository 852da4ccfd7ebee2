#if Encryption
#if canImport(CryptoKit)
import CryptoKit
#else
import Crypto
#endif
import Foundation
import Testing
@testable import ModelStore
import ModelStoreTestSupport

/// `ModelStore.rekey(named:in:from:to:)`: changing a database's key, encrypting and decrypting it.
@Suite("Encryption: re-keying")
struct RekeyTests {
    typealias Note = EncryptionRoundTripTests.Note

    static let count = 300

    static func note(_ index: Int) -> Note {
        Note(title: "title \(index)", body: "secret body \(index)", count: index)
    }

    /// A closed database of `count` records (a third in a collection, some with metadata and
    /// tags, some expiring) under `key`.
    static func fill(_ fixture: Fixture, key: SymmetricKey?, count: Int = count) throws {
        let store = try Sealing.open(fixture, key: key)
        let notes = store.collection("notes")
        for index in 0..<count {
            let writer: any ModelWriter = index % 3 == 0 ? notes : store
            if index % 2 == 0 {
                try writer.set(
                    note(index), forKey: "k\(index)", expiresAfter: index % 4 == 0 ? 86_400 : nil,
                    metadata: EncryptionRoundTripTests.stamp, tags: ["even"])
            } else {
                try writer.set(note(index), forKey: "k\(index)")
            }
        }
        try store.close()
    }

    /// Checks every record reads back exactly through a store opened with `key`.
    static func expectAll(_ fixture: Fixture, key: SymmetricKey?, count: Int = count) throws {
        let store = try Sealing.open(fixture, key: key)
        defer { try? store.close() }
        let notes = store.collection("notes")
        for index in 0..<count {
            let reader: any ModelReader = index % 3 == 0 ? notes : store
            let entry = try #require(try reader.entry(Note.self, forKey: "k\(index)"), "k\(index)")
            #expect(entry.value == note(index))
            #expect(try entry.metadata(EncryptionRoundTripTests.Stamp.self) == (index % 2 == 0 ? EncryptionRoundTripTests.stamp : nil))
            #expect(entry.tags == (index % 2 == 0 ? ["even"] : []))
            #expect((entry.expiresAt != nil) == (index % 4 == 0))
        }
    }

    @Test("A database moves from one key to another; the old key is then refused")
    func changesTheKey() throws {
        let fixture = Fixture()
        try Self.fill(fixture, key: Sealing.first)
        var reports: [ModelStore.RekeyProgress] = []
        let report = try ModelStore.rekey(
            named: "db", in: fixture.directory.url, from: Sealing.first, to: Sealing.second) { reports.append($0) }
        #expect(report.recordsResealed == Self.count)
        #expect(report.recordsVisited == Self.count)
        #expect(reports.last?.recordsVisited == Self.count)
        try Self.expectAll(fixture, key: Sealing.second)
        #expect(EncryptionMismatchTests.mismatch(fixture, key: .aes256GCM(key: Sealing.first)) == .wrongKey)
        // A second call with the same keys finds the job done.
        let again = try ModelStore.rekey(named: "db", in: fixture.directory.url, from: Sealing.first, to: Sealing.second)
        #expect(again.wasAlreadyDone)
    }

    @Test("A plain database is encrypted (older formats included) and decrypted again")
    func encryptsAndDecrypts() throws {
        let fixture = Fixture()
        try Self.fill(fixture, key: nil)
        // A version-1 record from an earlier release, written behind the store's back.
        let plain = try Sealing.open(fixture, key: nil)
        var legacy: [UInt8] = []
        RecordHeader(storedAt: 1_000, expiresAt: nil, codec: .json).writeVersionOne(to: &legacy)
        legacy += Array(#"{"title":"old","body":"secret old","count":-1}"#.utf8)
        try putRawRecord(plain, "legacy", in: nil, legacy)
        try plain.close()
        try ModelStore.rekey(named: "db", in: fixture.directory.url, from: nil, to: Sealing.first)
        try Self.expectAll(fixture, key: Sealing.first)
        let sealed = try Sealing.open(fixture, key: Sealing.first)
        #expect(try sealed.object(Note.self, forKey: "legacy")?.count == -1)
        #expect(!Sealing.contains(try #require(try rawRecord(sealed, "legacy")), "secret"))
        try sealed.close()
        #expect(EncryptionMismatchTests.mismatch(fixture, key: .none) == .keyRequired)
        try ModelStore.rekey(named: "db", in: fixture.directory.url, from: Sealing.first, to: nil)
        try Self.expectAll(fixture, key: nil)
        #expect(EncryptionMismatchTests.mismatch(fixture, key: .aes256GCM(key: Sealing.first)) == .notEncrypted)
    }

    @Test("A lost encryption marker (a repair that dropped its block) is restored by rekey(from: nil, to: key)")
    func lostMarkerIsRestored() throws {
        let fixture = Fixture()
        try Self.fill(fixture, key: Sealing.first, count: 20)
        // Remove the marker behind ModelStore's back, as a lost table block would.
        let engine = try LevelDB(
            path: fixture.directory.url.appendingPathComponent("db").path,
            options: ModelStore.Configuration().engineOptions, createIfMissing: false)
        try EncryptionMarker.key.withUnsafeBytes { try engine.delete(key: $0, sync: true) }
        engine.close()
        #expect(EncryptionMismatchTests.mismatch(fixture, key: .aes256GCM(key: Sealing.first)) == .notEncrypted)
        let report = try ModelStore.rekey(named: "db", in: fixture.directory.url, from: nil, to: Sealing.first)
        #expect(report.recordsAlreadyDone == 20)
        try Self.expectAll(fixture, key: Sealing.first, count: 20)
    }

    @Test("The wrong old key is refused before anything changes; an open store of the database refuses re-keying")
    func refusals() throws {
        let fixture = Fixture()
        try Self.fill(fixture, key: Sealing.first, count: 10)
        #expect(throws: ModelStoreError.encryptionMismatch(
            path: fixture.directory.url.appendingPathComponent("db").path, mismatch: .wrongKey)
        ) {
            try ModelStore.rekey(named: "db", in: fixture.directory.url, from: Sealing.key(3), to: Sealing.second)
        }
        #expect(throws: ModelStoreError.self) {
            try ModelStore.rekey(named: "db", in: fixture.directory.url, from: Sealing.first, to: Sealing.first)
        }
        let open = try Sealing.open(fixture, key: Sealing.first)
        #expect {
            try ModelStore.rekey(named: "db", in: fixture.directory.url, from: Sealing.first, to: Sealing.second)
        } throws: { error in
            guard case ModelStoreError.locked = error else { return false }
            return true
        }
        try open.close()
        try Self.expectAll(fixture, key: Sealing.first, count: 10)
        #expect(throws: ModelStoreError.notAModelStore(path: fixture.directory.url.appendingPathComponent("none").path)) {
            try ModelStore.rekey(named: "none", in: fixture.directory.url, from: Sealing.first, to: Sealing.second)
        }
    }
}
#endif
