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

/// Records of an encrypting store read back exactly, in every shape a record takes, and hold no
/// plaintext of their model or metadata on disk.
@Suite("Encryption: round trips")
struct EncryptionRoundTripTests {
    struct Note: Codable, Equatable, Sendable {
        var title: String
        var body: String
        var count: Int
    }

    struct Stamp: Codable, Equatable, Sendable {
        var etag: String
    }

    enum Shape: CaseIterable, CustomTestStringConvertible {
        case plain, metadata, tags, metadataAndTags, deadline, everything
        var hasMetadata: Bool { [.metadata, .metadataAndTags, .everything].contains(self) }
        var hasTags: Bool { [.tags, .metadataAndTags, .everything].contains(self) }
        var hasDeadline: Bool { [.deadline, .everything].contains(self) }
        var testDescription: String { "\(self)" }
    }

    enum Codec: CaseIterable, CustomTestStringConvertible {
        case json, binary, propertyList
        var codec: any ModelCodec {
            switch self {
            case .json: JSONModelCodec()
            case .binary: BinaryModelCodec()
            case .propertyList: PropertyListModelCodec()
            }
        }
        var testDescription: String { "\(self)" }
    }

    static let note = Note(title: "secret-title-5ac1", body: String(repeating: "secret body text ", count: 40), count: 7)
    static let stamp = Stamp(etag: "secret-etag-93f0")

    @Test("Every codec, compression, metadata, tags and deadline shape reads back exactly, sealed on disk",
        arguments: Codec.allCases, [false, true])
    func roundTrips(codec: Codec, compressed: Bool) throws {
        let fixture = Fixture()
        let store = try Sealing.open(
            fixture, key: Sealing.first, codec: codec.codec,
            compression: compressed ? .zstd(dictionarySampleCount: 100) : .none)
        let notes = store.collection("notes")
        for shape in Shape.allCases {
            for (where_, writer) in [("store", store as any ModelWriter), ("collection", notes as any ModelWriter)] {
                let key = "\(shape)-é"
                let tags = shape.hasTags ? ["tag-a", "tag-b"] : []
                let lifetime: TimeInterval? = shape.hasDeadline ? 3_600 : nil
                if shape.hasMetadata {
                    try writer.set(Self.note, forKey: key, expiresAfter: lifetime, metadata: Self.stamp, tags: tags)
                } else {
                    try writer.set(Self.note, forKey: key, expiresAfter: lifetime, tags: tags)
                }
                let reader = writer as any ModelReader
                #expect(try reader.object(Note.self, forKey: key) == Self.note, "\(shape) in \(where_)")
                store.database.invalidate(key)
                let entry = try #require(try reader.entry(Note.self, forKey: key))
                #expect(entry.value == Self.note)
                #expect(entry.tags == tags)
                #expect(try entry.metadata(Stamp.self) == (shape.hasMetadata ? Self.stamp : nil))
                #expect(try reader.metadata(Stamp.self, forKey: key) == (shape.hasMetadata ? Self.stamp : nil))
                #expect((entry.expiresAt != nil) == shape.hasDeadline)
                let raw = try #require(try rawRecord(store, key, in: where_ == "store" ? nil : "notes"))
                #expect(Sealing.keyID(of: raw) == RecordCipher(key: Sealing.first).keyID)
                #expect(!Sealing.contains(raw, "secret"), "plaintext on disk for \(shape) in \(where_)")
                if shape.hasTags { #expect(Sealing.contains(raw, "tag-a"), "tags stay readable") }
            }
        }
        // Ranges, batch reads and snapshots open records too.
        #expect(try store.entries(Note.self).collect().allSatisfy { $0.value == Self.note })
        #expect(try notes.entries(Note.self).collect().count == Shape.allCases.count)
        #expect(try store.objects(Note.self, forKeys: ["plain-é", "tags-é"]).count == 2)
        let snapshot = try store.snapshot()
        #expect(try snapshot.object(Note.self, forKey: "everything-é") == Self.note)
        #expect(try store.removeObjects(taggedWith: "tag-a") >= 3)
        #expect(try store.object(Note.self, forKey: "everything-é") == nil)
    }

    @Test("The README's example: an encrypting store, a key change, a plain database encrypted")
    func readmeExample() throws {
        let fixture = Fixture()
        let key = SymmetricKey(size: .bits256)
        var configuration = fixture.quietConfiguration
        configuration.encryption = .aes256GCM(key: key)
        let vault = try ModelStore(name: "vault", policy: .never, configuration: configuration)
        try vault.set(Self.note, forKey: "u1", metadata: Self.stamp, tags: ["team-7"])
        let newKey = SymmetricKey(size: .bits256)
        try vault.close()
        try ModelStore.rekey(named: "vault", in: fixture.directory.url, from: key, to: newKey)
        try Sealing.open(fixture, "plain-db", key: nil).close()
        try ModelStore.rekey(named: "plain-db", in: fixture.directory.url, from: nil, to: newKey)
        let reopened = try Sealing.open(fixture, "vault", key: newKey)
        #expect(try reopened.metadata(Stamp.self, forKey: "u1") == Self.stamp)
        try Sealing.open(fixture, "plain-db", key: newKey).close()
    }

    @Test("Compressed records of an encrypting store are compressed without a dictionary, and none is trained")
    func compressionWithoutDictionary() throws {
        let fixture = Fixture()
        let store = try Sealing.open(fixture, key: Sealing.first, compression: .zstd(dictionarySampleCount: 100))
        for index in 0..<300 { try store.set(Self.note, forKey: "n\(index)") }
        store.database.waitForMaintenance()
        #expect(store.database.dictionaries.current == nil)
        #expect(try store.object(Note.self, forKey: "n7") == Self.note)
        var opened: RecordHeader? = nil
        let raw = try #require(try rawRecord(store, "n7"))
        let cipher = RecordCipher(key: Sealing.first)
        try physicalKey("n7").withUnsafeBytes { keyBytes in
            try raw.withUnsafeBytes { record in
                let header = try #require(RecordHeader(parsing: record))
                var plain: [UInt8] = []
                #expect(cipher.open(record, header: header, key: keyBytes, into: &plain) == nil)
                opened = plain.withUnsafeBytes { RecordHeader(parsing: $0) }
            }
        }
        #expect(opened?.isPayloadCompressed == true)
    }

    @Test("refresh and replaceMetadata rewrite sealed records, sealed again")
    func rewrites() throws {
        let fixture = Fixture()
        let store = try Sealing.open(fixture, key: Sealing.first, policy: .low)
        try store.set(Self.note, forKey: "k", metadata: Self.stamp, tags: ["t"])
        fixture.clock.advance(by: 60)
        #expect(try store.refresh(forKey: "k"))
        #expect(try store.replaceMetadata(Stamp(etag: "secret-new"), forKey: "k"))
        let entry = try #require(try store.entry(Note.self, forKey: "k"))
        #expect(entry.value == Self.note)
        #expect(try entry.metadata(Stamp.self) == Stamp(etag: "secret-new"))
        #expect(entry.tags == ["t"])
        let raw = try #require(try rawRecord(store, "k"))
        #expect(Sealing.keyID(of: raw) != nil)
        #expect(!Sealing.contains(raw, "secret"))
    }

    @Test("Imports, batches and expiry work on sealed records; sweeps need no key to delete expired ones")
    func importsBatchesAndSweeps() async throws {
        let fixture = Fixture()
        let store = try Sealing.open(fixture, key: Sealing.first, policy: .low)
        _ = try await store.importObjects((0..<50).map { Note(title: "t\($0)", body: "b", count: $0) }, key: \.title)
        try store.write { batch in
            try batch.set(Self.note, forKey: "batched")
        }
        #expect(try store.object(Note.self, forKey: "t42")?.count == 42)
        #expect(try store.object(Note.self, forKey: "batched") == Self.note)
        #expect(try store.count() == 51)
        fixture.clock.advance(by: 365 * 24 * 3600)
        _ = try store.removeExpiredObjects()
        #expect(try store.count() == 0)
    }
}
#endif
