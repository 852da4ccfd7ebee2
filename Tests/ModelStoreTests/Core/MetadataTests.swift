import Foundation
import Testing
@testable import ModelStore
import ModelStoreTestSupport

/// Metadata beside each record: read without the model, replaced without rewriting it.
@Suite("Metadata")
struct MetadataTests {
    struct HTTPInfo: Codable, Equatable, Sendable {
        var etag: String
        var lastModified: String?
    }

    /// A model that can be stored but never decoded.
    struct Undecodable: Codable, Sendable {
        var name = "x"
        init() {}
        init(from decoder: any Decoder) throws {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "never decodes"))
        }
    }

    static let info = HTTPInfo(etag: "\"abc\"", lastModified: "Tue, 24 Nov 2026 10:00:00 GMT")

    /// The payload of the record for `key`: its bytes after the envelope.
    static func payload(_ store: ModelStore, _ key: String) throws -> [UInt8] {
        let record = try #require(try rawRecord(store, key))
        let header = try #require(record.withUnsafeBytes { RecordHeader(parsing: $0) })
        return Array(record[header.length...])
    }

    static func header(_ store: ModelStore, _ key: String) throws -> RecordHeader {
        let record = try #require(try rawRecord(store, key))
        return try #require(record.withUnsafeBytes { RecordHeader(parsing: $0) })
    }

    @Test("Metadata stored with a record reads back, with and without a lifetime, through the store and the entry")
    func roundTrip() throws {
        let store = try Fixture().open()
        try store.set(User.sample(), forKey: "u1", metadata: Self.info)
        try store.set(User.sample(), forKey: "u2", expiresAfter: 60, metadata: Self.info)
        for key in ["u1", "u2"] {
            #expect(try store.metadata(HTTPInfo.self, forKey: key) == Self.info)
            let entry = try #require(try store.entry(User.self, forKey: key))
            #expect(try entry.metadata(HTTPInfo.self) == Self.info)
        }
    }

    @Test("metadata(_:forKey:) is nil for a missing key, a record without metadata, and an expired record")
    func nilCases() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        try store.set(User.sample(), forKey: "plain")
        try store.set(User.sample(), forKey: "short", expiresAfter: 10, metadata: Self.info)
        #expect(try store.metadata(HTTPInfo.self, forKey: "missing") == nil)
        #expect(try store.metadata(HTTPInfo.self, forKey: "plain") == nil)
        #expect(try store.entry(User.self, forKey: "plain")?.metadata(HTTPInfo.self) == nil)
        fixture.clock.advance(by: 10)
        #expect(try store.metadata(HTTPInfo.self, forKey: "short") == nil)
    }

    @Test("metadata(_:forKey:) never decodes the model: a model whose init(from:) throws does not matter")
    func metadataWithoutModel() throws {
        let store = try Fixture().open()
        try store.set(Undecodable(), forKey: "k", metadata: Self.info)
        #expect(errorCase { _ = try store.object(Undecodable.self, forKey: "k") } == "decodingFailed")
        #expect(try store.metadata(HTTPInfo.self, forKey: "k") == Self.info)
    }

    @Test("Reading metadata as another type throws decodingFailed naming the key")
    func wrongMetadataType() throws {
        let store = try Fixture().open()
        try store.set(User.sample(), forKey: "k", metadata: Self.info)
        do {
            _ = try store.metadata(Int.self, forKey: "k")
            Issue.record("expected decodingFailed")
        } catch let ModelStoreError.decodingFailed(key, type, message) {
            #expect(key == "k")
            #expect(type == "Int")
            #expect(message.contains("metadata"))
        }
        let entry = try #require(try store.entry(User.self, forKey: "k"))
        #expect(errorCase { _ = try entry.metadata(Int.self) } == "decodingFailed")
    }

    @Test("Metadata that does not encode throws encodingFailed naming the key, and nothing is written")
    func unencodableMetadata() throws {
        let store = try Fixture().open()
        try store.set(1, forKey: "k", metadata: "m")
        #expect(errorCase { try store.set(2, forKey: "k", metadata: Double.infinity) } == "encodingFailed")
        #expect(errorCase { _ = try store.replaceMetadata(Double.infinity, forKey: "k") } == "encodingFailed")
        #expect(errorCase { _ = try store.refresh(forKey: "k", metadata: Double.infinity) } == "encodingFailed")
        #expect(try store.object(Int.self, forKey: "k") == 1)
        #expect(try store.metadata(String.self, forKey: "k") == "m")
        try store.set(3, forKey: "k")  // writes still work
    }

    @Test("Metadata is encoded with the store's codec, and reads back through another built-in codec's store")
    func storeCodecEncodesMetadata() throws {
        let fixture = Fixture()
        let binary = try fixture.open(codec: BinaryModelCodec())
        try binary.set(User.sample(), forKey: "k", metadata: Self.info)
        let record = try #require(try rawRecord(binary, "k"))
        #expect(record[15 + 1] == ModelCodecIdentifier.binary.rawValue)  // after the length byte
        try binary.close()
        let json = try fixture.open()
        #expect(try json.metadata(HTTPInfo.self, forKey: "k") == Self.info)
    }

    @Test("replaceMetadata leaves the model's bytes, storedAt and the deadline identical")
    func replaceKeepsModelBytes() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        try store.set(User.sample(), forKey: "k", expiresAfter: 600, metadata: Self.info)
        let payload = try Self.payload(store, "k")
        let before = try Self.header(store, "k")
        fixture.clock.advance(by: 30)
        let newer = HTTPInfo(etag: "\"def\"", lastModified: nil)
        #expect(try store.replaceMetadata(newer, forKey: "k"))
        #expect(try Self.payload(store, "k") == payload)
        let after = try Self.header(store, "k")
        #expect(after.storedAt == before.storedAt)
        #expect(after.expiresAt == before.expiresAt)
        #expect(try store.metadata(HTTPInfo.self, forKey: "k") == newer)
        #expect(try store.object(User.self, forKey: "k") == User.sample())
    }

    @Test("refresh restarts the lifetime now, keeps the model's bytes, and keeps the metadata when given none")
    func refreshRestartsLifetime() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        try store.set(User.sample(), forKey: "own", expiresAfter: 100, metadata: Self.info)
        try store.set(User.sample(), forKey: "policy", metadata: Self.info)
        let payload = try Self.payload(store, "own")
        fixture.clock.advance(by: 60)
        let now = fixture.clock.now.timeIntervalSinceReferenceDate
        #expect(try store.refresh(forKey: "own"))
        #expect(try store.refresh(forKey: "policy"))
        let own = try Self.header(store, "own")
        #expect(own.storedAt == now)
        #expect(own.expiresAt == now + 100)  // the same lifetime again, from now
        #expect(try Self.header(store, "policy").expiresAt == nil)
        #expect(try Self.payload(store, "own") == payload)
        #expect(try store.metadata(HTTPInfo.self, forKey: "own") == Self.info)
    }

    @Test("refresh with a lifetime and metadata sets that deadline and replaces the metadata")
    func refreshWithLifetimeAndMetadata() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        try store.set(User.sample(), forKey: "k", metadata: Self.info)
        let payload = try Self.payload(store, "k")
        fixture.clock.advance(by: 5)
        let newer = HTTPInfo(etag: "\"v2\"", lastModified: nil)
        #expect(try store.refresh(forKey: "k", expiresAfter: 30, metadata: newer))
        let header = try Self.header(store, "k")
        #expect(header.expiresAt == fixture.clock.now.timeIntervalSinceReferenceDate + 30)
        #expect(try Self.payload(store, "k") == payload)
        #expect(try store.metadata(HTTPInfo.self, forKey: "k") == newer)
        #expect(errorCase { _ = try store.refresh(forKey: "k", expiresAfter: -1) } == "invalidPolicy")
    }

    @Test("replaceMetadata and refresh return false and write nothing for a missing or expired record")
    func missingOrExpired() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        try store.set(User.sample(), forKey: "short", expiresAfter: 10)
        fixture.clock.advance(by: 10)
        let expired = try rawRecord(store, "short")
        for key in ["missing", "short"] {
            #expect(try !store.replaceMetadata(Self.info, forKey: key))
            #expect(try !store.refresh(forKey: key, metadata: Self.info))
            #expect(try !store.refresh(forKey: key, expiresAfter: 60))
        }
        #expect(try rawRecord(store, "missing") == nil)
        #expect(try rawRecord(store, "short") == expired)
    }

    @Test("Batches store metadata, with and without a lifetime")
    func batchMetadata() throws {
        let store = try Fixture().open()
        try store.write { batch in
            try batch.set(User.sample(), forKey: "a", metadata: Self.info)
            try batch.set(User.sample(), forKey: "b", expiresAfter: 60, metadata: Self.info)
        }
        #expect(try store.metadata(HTTPInfo.self, forKey: "a") == Self.info)
        #expect(try store.metadata(HTTPInfo.self, forKey: "b") == Self.info)
        #expect(try Self.header(store, "b").expiresAt != nil)
    }

    @Test("The object cache stays coherent: cached entries carry their metadata, and rewrites replace it")
    func cacheCoherence() throws {
        let fixture = Fixture()
        var configuration = fixture.configuration
        configuration.objectCacheLimit = 16
        let store = try ModelStore(name: "db", policy: .never, configuration: configuration)
        try store.set(User.sample(), forKey: "k", metadata: Self.info)
        _ = try store.object(User.self, forKey: "k")  // cached by a read that does not return metadata
        #expect(try store.entry(User.self, forKey: "k")?.metadata(HTTPInfo.self) == Self.info)
        let newer = HTTPInfo(etag: "\"new\"", lastModified: nil)
        #expect(try store.replaceMetadata(newer, forKey: "k"))
        #expect(try store.entry(User.self, forKey: "k")?.metadata(HTTPInfo.self) == newer)
        fixture.clock.advance(by: 5)
        #expect(try store.refresh(forKey: "k"))
        #expect(try store.entry(User.self, forKey: "k")?.storedAt == fixture.clock.now)
    }

    @Test("refresh and replaceMetadata report .set to observers")
    func changeEvents() async throws {
        let store = try Fixture().open()
        try store.set(1, forKey: "k", metadata: "m")
        let stream = store.changes()
        #expect(try store.replaceMetadata("n", forKey: "k"))
        #expect(try store.refresh(forKey: "k"))
        #expect(try !store.refresh(forKey: "missing"))
        try store.set(2, forKey: "end")
        var seen: [String] = []
        for await change in stream {
            seen.append("\(change.kind) \(change.key)")
            if change.key == "end" { break }
        }
        #expect(seen == ["set k", "set k", "set end"])
    }

    @Test("A refresh racing sets never brings back an older model's bytes")
    func refreshRacingSet() throws {
        let store = try Fixture().open()
        try store.set(0, forKey: "k", metadata: "m")
        // Threads, not tasks: the rewrites must really overlap the set, and the cooperative
        // pool may have a single thread.
        for round in 1...1_500 {
            DispatchQueue.concurrentPerform(iterations: 4) { index in
                switch index {
                case 0: try? store.set(round, forKey: "k", metadata: "m")
                case 1: _ = try? store.replaceMetadata("r", forKey: "k")
                default: _ = try? store.refresh(forKey: "k")
                }
            }
            let value = try store.object(Int.self, forKey: "k")
            #expect(value == round, "round \(round)")
            if value != round { break }
        }
    }
}
