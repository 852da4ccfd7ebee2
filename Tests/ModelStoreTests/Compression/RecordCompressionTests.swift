import CZstd
import Foundation
import Testing
@testable import ModelStore
import ModelStoreTestSupport

/// Opt-in record compression: Zstandard with a dictionary trained on the database's records.
@Suite("Record compression")
struct RecordCompressionTests {
    /// A profile shaped like the benchmark's: repetitive field names and words, varied values.
    struct Profile: Codable, Equatable, Sendable {
        var id: Int
        var name: String
        var email: String
        var tags: [String]
        var score: Double
        var bio: String

        static func make(_ id: Int) -> Profile {
            var random = SeededGenerator(seed: UInt64(id) &+ 1)
            let names = ["Ada Lovelace", "Grace Hopper", "Alan Turing", "Edsger Dijkstra", "Barbara Liskov"]
            let words = ["writes", "about", "systems", "that", "keep", "data", "safe", "and", "fast", "under", "load"]
            let tags = ["swift", "storage", "caching", "linux", "databases", "compilers"]
            let name = names.randomElement(using: &random)!
            var bio = name
            while bio.utf8.count < 160 { bio += " " + words.randomElement(using: &random)! }
            return Profile(
                id: id, name: name, email: "user\(id)@example.com",
                tags: (0..<3).map { _ in tags.randomElement(using: &random)! },
                score: Double(Int.random(in: 0..<100_000, using: &random)) / 100, bio: bio)
        }
    }

    struct Tag: Codable, Equatable, Sendable {
        var etag: String
    }

    static let sampleCount = 200

    static func compressed(_ fixture: Fixture, codec: any ModelCodec = JSONModelCodec()) throws -> ModelStore {
        var configuration = fixture.configuration
        configuration.codec = codec
        configuration.recordCompression = .zstd(dictionarySampleCount: sampleCount)
        return try ModelStore(name: "db", policy: .never, configuration: configuration)
    }

    /// Writes enough records to train the dictionary and waits until it is stored.
    static func train(_ store: ModelStore) throws {
        for id in 0..<sampleCount { try store.set(Profile.make(id), forKey: "train-\(id)") }
        store.database.waitForMaintenance()
        #expect(store.database.dictionaries.current != nil)
    }

    static func isCompressed(_ record: [UInt8]?) -> Bool {
        guard let record, record.count > 1 else { return false }
        return record[1] & RecordHeader.compressedPayloadFlag != 0
    }

    /// Replaces the stored value of `key` by `transform(value)`, resealed with a valid checksum:
    /// what a writer with a bug (or an attacker) could store, past the record checksum.
    static func rewriteSealed(_ store: ModelStore, _ key: String, _ transform: (inout [UInt8], RecordHeader) -> Void)
        throws
    {
        var record = try #require(try rawRecord(store, key))
        let header = try #require(record.withUnsafeBytes { RecordHeader(parsing: $0) })
        transform(&record, header)
        Array(key.utf8).withUnsafeBytes { RecordHeader.seal(&record, key: $0) }
        try putRawRecord(store, key, record)
        store.database.invalidate(key)
    }

    /// Expects `body` to throw `corrupted` naming `key` and containing `phrase`.
    static func expectDamaged(
        key: String, _ phrase: String, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void
    ) {
        do {
            try body()
            Issue.record("expected corrupted for \(key)", sourceLocation: sourceLocation)
        } catch let ModelStoreError.corrupted(_, message) {
            #expect(message.contains("\"\(key)\""), "\(message)", sourceLocation: sourceLocation)
            #expect(message.contains(phrase), "\(message)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("expected corrupted, got \(error)", sourceLocation: sourceLocation)
        }
    }

    // MARK: - Round trips

    @Test("Every codec's records round-trip compressed, smaller than the same records uncompressed", arguments: [
        ModelCodecIdentifier.json, .propertyList, .binary,
    ])
    func roundTripEveryCodec(_ identifier: ModelCodecIdentifier) throws {
        let codec: any ModelCodec =
            switch identifier {
            case .propertyList: PropertyListModelCodec()
            case .binary: BinaryModelCodec()
            default: JSONModelCodec()
            }
        let fixture = Fixture()
        let store = try Self.compressed(fixture, codec: codec)
        try Self.train(store)
        let plain = try fixture.open("plain", codec: codec)
        var stored = 0
        var uncompressed = 0
        for id in 1_000..<1_100 {
            try store.set(Profile.make(id), forKey: "p\(id)")
            try plain.set(Profile.make(id), forKey: "p\(id)")
            let record = try rawRecord(store, "p\(id)")
            #expect(Self.isCompressed(record))
            stored += record?.count ?? 0
            uncompressed += try rawRecord(plain, "p\(id)")?.count ?? 0
        }
        #expect(stored * 2 < uncompressed, "\(stored) bytes compressed against \(uncompressed)")
        for id in 1_000..<1_100 {
            #expect(try store.object(Profile.self, forKey: "p\(id)") == Profile.make(id))
            #expect(try store.entry(Profile.self, forKey: "p\(id)")?.value == Profile.make(id))
        }
        // The records from before the dictionary are stored as they were, and read as well.
        #expect(!Self.isCompressed(try rawRecord(store, "train-0")))
        #expect(try store.object(Profile.self, forKey: "train-0") == Profile.make(0))
        // Scans, snapshots and batches take the same path.
        let scanned = try store.objects(Profile.self, forKeys: ["p1000", "p1099"])
        #expect(scanned.map(\.value.id).sorted() == [1_000, 1_099])
        #expect(scanned.allSatisfy { $0.value == Profile.make($0.value.id) })
        let snapshot = try store.snapshot()
        #expect(try snapshot.object(Profile.self, forKey: "p1050") == Profile.make(1_050))
        snapshot.close()
        try store.write { batch in try batch.set(Profile.make(7), forKey: "batched") }
        #expect(Self.isCompressed(try rawRecord(store, "batched")))
        #expect(try store.object(Profile.self, forKey: "batched") == Profile.make(7))
    }

    @Test("A model that does not shrink is stored uncompressed")
    func incompressibleStaysPlain() throws {
        let store = try Self.compressed(Fixture())
        try Self.train(store)
        try store.set(7, forKey: "tiny")
        #expect(!Self.isCompressed(try rawRecord(store, "tiny")))
        #expect(try store.object(Int.self, forKey: "tiny") == 7)
    }

    @Test("Imports compress once the dictionary exists, and every imported record reads back")
    func importWithCompression() async throws {
        let store = try Self.compressed(Fixture())
        try Self.train(store)
        let report = try await store.importObjects((0..<2_000).map(Profile.make), key: { "i\($0.id)" }, batchSize: 500)
        #expect(report.written == 2_000)
        #expect(Self.isCompressed(try rawRecord(store, "i1999")))
        for id in stride(from: 0, to: 2_000, by: 97) {
            #expect(try store.object(Profile.self, forKey: "i\(id)") == Profile.make(id))
        }
    }

    // MARK: - The envelope stays uncompressed

    @Test("metadata, contains, count, keys and sweeps read only the envelope: a damaged frame does not affect them")
    func envelopeReadsNeverDecompress() throws {
        let fixture = Fixture()
        let store = try Self.compressed(fixture)
        try Self.train(store)
        try store.set(Profile.make(1), forKey: "tagged", expiresAfter: 60, metadata: Tag(etag: "v1"))
        #expect(Self.isCompressed(try rawRecord(store, "tagged")))
        try Self.rewriteSealed(store, "tagged") { record, _ in
            for index in (record.count - 8)..<record.count { record[index] ^= 0x5A }
        }
        #expect(try store.metadata(Tag.self, forKey: "tagged") == Tag(etag: "v1"))
        #expect(try store.contains("tagged"))
        #expect(try store.count() == Self.sampleCount + 1)
        #expect(try store.keys().collect().contains("tagged"))
        // The dictionary (a system record) is never counted, listed or swept.
        #expect(try store.keys().collect().count == Self.sampleCount + 1)
        fixture.clock.advance(by: 120)
        #expect(try store.removeExpiredObjects() == 1)
        #expect(try store.count() == Self.sampleCount)
        #expect(try store.database.run { engine in
            try RecordDictionaries.key(id: 1).withUnsafeBytes { try engine.withValue(forKey: $0) { $0 != nil } }
        })
    }

    @Test("Rewriting metadata keeps a compressed model compressed and readable")
    func metadataRewriteKeepsPayload() throws {
        let store = try Self.compressed(Fixture())
        try Self.train(store)
        try store.set(Profile.make(3), forKey: "k", metadata: Tag(etag: "a"))
        #expect(try store.replaceMetadata(Tag(etag: "b"), forKey: "k"))
        #expect(Self.isCompressed(try rawRecord(store, "k")))
        #expect(try store.object(Profile.self, forKey: "k") == Profile.make(3))
        #expect(try store.metadata(Tag.self, forKey: "k") == Tag(etag: "b"))
    }

    // MARK: - Compatibility

    @Test("A store opened without the option reads compressed records: the dictionary is in the database")
    func reopenWithoutOption() throws {
        let fixture = Fixture()
        let store = try Self.compressed(fixture)
        try Self.train(store)
        try store.set(Profile.make(42), forKey: "answer")
        #expect(Self.isCompressed(try rawRecord(store, "answer")))
        try store.close()
        let plain = try fixture.open()
        #expect(plain.database !== store.database)
        #expect(try plain.object(Profile.self, forKey: "answer") == Profile.make(42))
        // It writes uncompressed, and reads both.
        try plain.set(Profile.make(43), forKey: "next")
        #expect(!Self.isCompressed(try rawRecord(plain, "next")))
        #expect(try plain.object(Profile.self, forKey: "next") == Profile.make(43))
    }

    @Test("Readers from before compression refuse a compressed record as undecodable: it sets an unknown flag")
    func olderReadersRefuse() throws {
        let store = try Self.compressed(Fixture())
        try Self.train(store)
        try store.set(Profile.make(5), forKey: "new")
        let record = try #require(try rawRecord(store, "new"))
        // The previous release's known flags were bits 0-2; it refuses anything else.
        let previousKnownFlags: UInt8 = 0b0000_0111
        #expect(record[1] & ~previousKnownFlags != 0)
    }

    @Test("A database written without compression reads unchanged with it on, then gets a dictionary from its records")
    func existingDatabaseWithOptionOn() throws {
        let fixture = Fixture()
        let plain = try fixture.open()
        for id in 0..<Self.sampleCount { try plain.set(Profile.make(id), forKey: "old-\(id)") }
        let path = plain.url.path
        try plain.close()
        try writeWithForeignClient(path: path, records: [
            (Array("v1".utf8), try RecordFormatTwoTests.versionOneRecord(Profile.make(9), storedAt: fixture.clock.now))
        ])
        let before = try #require(try {
            let store = try fixture.open()
            defer { try? store.close() }
            return try rawRecord(store, "old-0")
        }())
        let store = try Self.compressed(fixture)
        #expect(try store.object(Profile.self, forKey: "v1") == Profile.make(9))
        for id in 0..<Self.sampleCount {
            #expect(try store.object(Profile.self, forKey: "old-\(id)") == Profile.make(id))
        }
        // The dictionary is trained from the stored records, in the background.
        store.database.waitForMaintenance()
        #expect(store.database.dictionaries.current != nil)
        #expect(try rawRecord(store, "old-0") == before)
        try store.set(Profile.make(1), forKey: "fresh")
        #expect(Self.isCompressed(try rawRecord(store, "fresh")))
        #expect(try store.count() == Self.sampleCount + 2)
    }

    // MARK: - Damage

    @Test("A damaged frame throws corrupted naming the key, never a wrong value")
    func damagedFrame() throws {
        let store = try Self.compressed(Fixture())
        try Self.train(store)
        try store.set(Profile.make(1), forKey: "k")
        try Self.rewriteSealed(store, "k") { record, header in
            // The frame's first block header and bytes after it.
            for index in (header.length + 6)..<min(record.count, header.length + 14) { record[index] ^= 0xFF }
        }
        Self.expectDamaged(key: "k", "does not decompress") { _ = try store.object(Profile.self, forKey: "k") }
    }

    @Test("A truncated frame throws corrupted naming the key")
    func truncatedFrame() throws {
        let store = try Self.compressed(Fixture())
        try Self.train(store)
        try store.set(Profile.make(1), forKey: "k")
        try Self.rewriteSealed(store, "k") { record, _ in record.removeLast(10) }
        Self.expectDamaged(key: "k", "does not decompress") { _ = try store.object(Profile.self, forKey: "k") }
        try Self.rewriteSealed(store, "k") { record, header in record.removeLast(record.count - header.length - 3) }
        Self.expectDamaged(key: "k", "compressed model") { _ = try store.entry(Profile.self, forKey: "k") }
    }

    @Test("A frame that claims more bytes than any record may hold is refused before anything is allocated")
    func frameClaimingHugeSize() throws {
        let store = try Self.compressed(Fixture())
        try Self.train(store)
        try store.set(Profile.make(1), forKey: "k")
        try Self.rewriteSealed(store, "k") { record, header in
            record.removeLast(record.count - header.length)
            record.append(0)  // no dictionary
            // Magic, a descriptor with an 8-byte content size and a single segment, 2^40 bytes,
            // then one raw last block of one byte.
            record += [0x28, 0xB5, 0x2F, 0xFD, 0xE0]
            withUnsafeBytes(of: (UInt64(1) << 40).littleEndian) { record += $0 }
            record += [0x09, 0x00, 0x00, 0x41]
        }
        Self.expectDamaged(key: "k", "claims 1099511627776 bytes") { _ = try store.object(Profile.self, forKey: "k") }
    }

    @Test("A record naming a dictionary the database does not hold throws corrupted naming the key")
    func unknownDictionary() throws {
        let store = try Self.compressed(Fixture())
        try Self.train(store)
        try store.set(Profile.make(1), forKey: "k")
        try Self.rewriteSealed(store, "k") { record, header in record[header.length] = 0x7F }
        Self.expectDamaged(key: "k", "dictionary 127") { _ = try store.object(Profile.self, forKey: "k") }
    }

    @Test("A frame without a dictionary (id 0) reads back")
    func frameWithoutDictionary() throws {
        let store = try Self.compressed(Fixture())
        try store.set(Profile.make(1), forKey: "k")
        try Self.rewriteSealed(store, "k") { record, header in
            let model = Array(record[header.length...])
            var frame = [UInt8](repeating: 0, count: ZSTD_compressBound(model.count))
            let length = frame.withUnsafeMutableBytes { output in
                model.withUnsafeBytes { ZSTD_compress(output.baseAddress, output.count, $0.baseAddress, $0.count, 3) }
            }
            record.removeLast(record.count - header.length)
            record.append(0)
            record += frame[..<length]
            record[1] |= RecordHeader.compressedPayloadFlag
        }
        #expect(try store.object(Profile.self, forKey: "k") == Profile.make(1))
    }

    @Test("A damaged dictionary record makes its records throw corrupted, and no new dictionary is trained over it")
    func damagedDictionary() throws {
        let fixture = Fixture()
        let store = try Self.compressed(fixture)
        try Self.train(store)
        try store.set(Profile.make(1), forKey: "k")
        try store.close()
        let key = RecordDictionaries.key(id: 1)
        try {
            let plain = try fixture.open()
            defer { try? plain.close() }
            try plain.database.write { engine in
                try key.withUnsafeBytes { key in
                    var value = try #require(try engine.withValue(forKey: key) { $0.map { Array($0) } })
                    value[value.count - 1] ^= 0xFF
                    try value.withUnsafeBytes { try engine.put(key: key, value: $0, sync: false) }
                }
            }
        }()
        let reopened = try Self.compressed(fixture)
        Self.expectDamaged(key: "k", "dictionary 1") { _ = try reopened.object(Profile.self, forKey: "k") }
        #expect(reopened.database.dictionaries.isCollecting == false)
        try reopened.set(Profile.make(2), forKey: "after")
        #expect(!Self.isCompressed(try rawRecord(reopened, "after")))
    }

    @Test("Levels and sample counts out of range are refused before anything touches the disk")
    func invalidSettings() throws {
        var configuration = Fixture().configuration
        configuration.recordCompression = .zstd(level: 0)
        #expect(errorCase { _ = try ModelStore(name: "db", policy: .never, configuration: configuration) }
            == "invalidPolicy")
        configuration.recordCompression = .zstd(dictionarySampleCount: 10)
        #expect(errorCase { _ = try ModelStore(name: "db", policy: .never, configuration: configuration) }
            == "invalidPolicy")
        #expect(ModelStore.Configuration().recordCompression == .none)
    }
}
