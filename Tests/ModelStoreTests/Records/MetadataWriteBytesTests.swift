import Foundation
import Testing
@testable import ModelStore
import ModelStoreTestSupport

/// A record's metadata and model written in one codec call, checked against the record built the way the store
/// built it before: the header, the metadata section (its LEB128 length, the codec's byte, the metadata as the
/// codec encodes it on its own) and the model as the codec encodes it on its own.
@Suite("Metadata writes: the record's exact bytes, failing models and codecs")
struct MetadataWriteBytesTests {
    static let codecs: [any ModelCodec] = [JSONModelCodec(), PropertyListModelCodec(), BinaryModelCodec()]

    /// `value` in unsigned LEB128, written out here rather than by the library.
    static func leb128(_ value: Int) -> [UInt8] {
        var value = value
        var bytes: [UInt8] = []
        repeat {
            let low = UInt8(value & 0x7F)
            value >>= 7
            bytes.append(value == 0 ? low : low | 0x80)
        } while value != 0
        return bytes
    }

    /// The metadata section for `metadata`: length, codec byte, the metadata's own bytes.
    static func section<Metadata: Encodable>(_ metadata: Metadata, codec: any ModelCodec) throws -> [UInt8] {
        let encoded = Array(try codec.encode(metadata))
        return leb128(1 + encoded.count) + [codec.identifier.rawValue] + encoded
    }

    /// The whole record the store must write for `model` with `metadata` under `key` at `fixture`'s time.
    static func expectedRecord<Model: Encodable, Metadata: Encodable>(
        _ model: Model, metadata: Metadata, key: String, codec: any ModelCodec, fixture: Fixture
    ) throws -> [UInt8] {
        var record: [UInt8] = []
        let header = RecordHeader(
            storedAt: fixture.clock.now.timeIntervalSinceReferenceDate, expiresAt: nil, codec: codec.identifier)
        header.writeVersionThree(to: &record, hasMetadata: true, hasTags: false)
        record += try section(metadata, codec: codec)
        record += Array(try codec.encode(model))
        Array(key.utf8).withUnsafeBytes { RecordHeader.seal(&record, key: $0) }
        return record
    }

    typealias Info = MetadataTests.HTTPInfo

    static func info(_ etag: String) -> Info { Info(etag: etag, lastModified: nil) }

    /// Metadata whose section (codec byte included) is up to three bytes either side of where its LEB128 length
    /// grows from one byte to two (128) and from two to three (16384). (A struct: the property-list codec refuses
    /// a bare string at the top level.)
    static func metadataAroundLengthBoundaries(codec: any ModelCodec) throws -> [Info] {
        var infos: [Info] = []
        for boundary in [128, 16_384] {
            for count in max(0, boundary - 90)...(boundary + 4) {
                let info = info(String(repeating: "m", count: count))
                let sectionLength = 1 + (try codec.encode(info)).count
                if abs(sectionLength - boundary) <= 3 { infos.append(info) }
            }
        }
        return infos
    }

    @Test("Every codec writes the old path's bytes for metadata around each LEB128 length boundary")
    func recordsMatchTheSeparateEncodes() throws {
        for codec in Self.codecs {
            let fixture = Fixture()
            let store = try fixture.open(codec: codec)
            let strings = try Self.metadataAroundLengthBoundaries(codec: codec)
            #expect(strings.count >= 10, "\(codec.identifier)")
            for (index, metadata) in strings.enumerated() {
                let key = "k\(index)"
                try store.set(User.sample(), forKey: key, metadata: metadata)
                let expected = try Self.expectedRecord(
                    User.sample(), metadata: metadata, key: key, codec: codec, fixture: fixture)
                #expect(try rawRecord(store, key) == expected, "\(codec.identifier), \(metadata.etag.utf8.count) bytes")
                #expect(try store.metadata(Info.self, forKey: key) == metadata)
                #expect(try store.object(User.self, forKey: key) == User.sample())
            }
            // A model that is an array of scalars.
            try store.set([7], forKey: "scalar", metadata: MetadataTests.info)
            #expect(try rawRecord(store, "scalar") == (try Self.expectedRecord(
                [7], metadata: MetadataTests.info, key: "scalar", codec: codec, fixture: fixture)))
        }
    }

    @Test("A write batch writes the same bytes as a set, for each codec")
    func writeBatchRecordsMatch() throws {
        for codec in Self.codecs {
            let fixture = Fixture()
            let store = try fixture.open(codec: codec)
            let strings = try Self.metadataAroundLengthBoundaries(codec: codec)
            try store.write { batch in
                for (index, metadata) in strings.enumerated() {
                    try batch.set(User.sample("b\(index)"), forKey: "b\(index)", metadata: metadata)
                    try batch.set(User.sample(), forKey: "t\(index)", metadata: metadata, tags: [])
                }
            }
            for (index, metadata) in strings.enumerated() {
                #expect(try rawRecord(store, "b\(index)") == (try Self.expectedRecord(
                    User.sample("b\(index)"), metadata: metadata, key: "b\(index)", codec: codec, fixture: fixture)))
                #expect(try rawRecord(store, "t\(index)") == (try Self.expectedRecord(
                    User.sample(), metadata: metadata, key: "t\(index)", codec: codec, fixture: fixture)))
            }
        }
    }

    @Test("With record compression, the metadata section is written as it was and the model reads back")
    func compressedRecordsAroundBoundaries() throws {
        let fixture = Fixture()
        let store = try RecordCompressionTests.compressed(fixture)
        try RecordCompressionTests.train(store)
        let codec = JSONModelCodec()
        for (index, metadata) in try Self.metadataAroundLengthBoundaries(codec: codec).enumerated() {
            let key = "c\(index)"
            let profile = RecordCompressionTests.Profile.make(index)
            try store.set(profile, forKey: key, metadata: metadata)
            let record = try #require(try rawRecord(store, key))
            #expect(RecordCompressionTests.isCompressed(record))
            let header = try #require(record.withUnsafeBytes { RecordHeader(parsing: $0) })
            let section = try Self.section(metadata, codec: codec)
            #expect(Array(record[(header.length - section.count)..<header.length]) == section)
            #expect(try store.object(RecordCompressionTests.Profile.self, forKey: key) == profile)
            #expect(try store.metadata(Info.self, forKey: key) == metadata)
        }
    }

    /// Throws from its `encode(to:)` after writing part of itself.
    struct Throws: Codable, Sendable {
        struct Refused: Error {}
        init() {}
        init(from decoder: any Decoder) throws { throw Refused() }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.unkeyedContainer()
            try container.encode("partly written")
            throw Refused()
        }
    }

    @Test("Metadata or a model that throws leaves the previous record as it was and names the part, in every codec")
    func failuresNameThePartAndKeepThePreviousRecord() throws {
        for codec in Self.codecs {
            let store = try Fixture().open(codec: codec)
            try store.set(User.sample(), forKey: "k", metadata: Self.info("old"))
            let before = try rawRecord(store, "k")
            let cases: [(model: any Encodable, metadata: any Codable & Sendable, blamesMetadata: Bool)] = [
                (User.sample(), Throws(), true), (Throws(), Self.info("new"), false), (Throws(), Throws(), true),
            ]
            for (model, metadata, blamesMetadata) in cases {
                do {
                    try store.set(model, forKey: "k", metadata: metadata)
                    Issue.record("expected encodingFailed")
                } catch let ModelStoreError.encodingFailed(key, type, message) {
                    #expect(key == "k")
                    #expect(type.contains("Throws"))
                    #expect(message.contains("the metadata does not encode") == blamesMetadata)
                }
                #expect(try rawRecord(store, "k") == before)
                do {
                    try store.write { batch in try batch.set(model, forKey: "k", metadata: metadata) }
                    Issue.record("expected encodingFailed")
                } catch let ModelStoreError.encodingFailed(_, _, message) {
                    #expect(message.contains("the metadata does not encode") == blamesMetadata)
                }
                #expect(try rawRecord(store, "k") == before)
            }
            // The next write on this thread is whole after those failures.
            try store.set(User.sample("z"), forKey: "k", metadata: Self.info("next"))
            #expect(try store.metadata(Info.self, forKey: "k") == Self.info("next"))
            #expect(try store.object(User.self, forKey: "k") == User.sample("z"))
        }
    }

    /// A codec of a user's own whose `encode(_:then:appendingTo:)` says the second value starts where it does not.
    struct WrongMiddleCodec: ModelCodec {
        /// What it returns, given where the first value's bytes started and ended.
        let middle: @Sendable (_ start: Int, _ end: Int, _ count: Int) -> Int
        var identifier: ModelCodecIdentifier { .custom(9) }
        func encode<Value: Encodable>(_ value: Value) throws -> Data { try JSONEncoder().encode(value) }
        func decode<Value: Decodable>(_ type: Value.Type, from data: Data) throws -> Value {
            try JSONDecoder().decode(type, from: data)
        }
        func encode<First: Encodable, Second: Encodable>(
            _ first: First, then second: Second, appendingTo buffer: inout [UInt8]
        ) throws -> Int {
            let start = buffer.count
            try encode(first, appendingTo: &buffer)
            let end = buffer.count
            try encode(second, appendingTo: &buffer)
            return middle(start, end, buffer.count)
        }
    }

    @Test("A codec that returns a wrong middle gets a typed error, never a crash or a damaged record")
    func aWrongMiddleIsRefused() throws {
        let wrongMiddles: [@Sendable (Int, Int, Int) -> Int] = [
            { start, end, _ in end - start },  // relative to its own start
            { _, _, _ in 0 },
            { start, _, _ in start - 1 },
            { _, _, count in count + 1 },
            { _, _, _ in -5 },
        ]
        for middle in wrongMiddles {
            let store = try Fixture().open(codec: WrongMiddleCodec(middle: middle))
            try? store.set(User.sample(), forKey: "k")
            do {
                try store.set(User.sample(), forKey: "k", metadata: "etag")
                Issue.record("expected encodingFailed")
            } catch let ModelStoreError.encodingFailed(key, type, message) {
                #expect(key == "k")
                #expect(type == "User")
                #expect(message.contains("encode(_:then:appendingTo:)"))
            }
            #expect(try store.object(User.self, forKey: "k") == User.sample())
            #expect(try store.metadata(String.self, forKey: "k") == nil)
        }
        // The right middle still works with the same codec.
        let store = try Fixture().open(codec: WrongMiddleCodec { _, end, _ in end })
        try store.set(User.sample(), forKey: "k", metadata: "etag")
        #expect(try store.metadata(String.self, forKey: "k") == "etag")
        #expect(try store.object(User.self, forKey: "k") == User.sample())
    }
}
