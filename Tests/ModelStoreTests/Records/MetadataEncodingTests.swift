import Foundation
import Testing
@testable import ModelStore
import ModelStoreTestSupport

/// Writing a record with metadata, where the metadata and the model are encoded in one codec call
/// (`ModelCodec.encode(_:then:appendingTo:)`): the errors still say which of the two failed, and
/// the bytes are those of two separate encodes.
@Suite("Metadata encoding")
struct MetadataEncodingTests {
    /// A model that never encodes.
    struct Unencodable: Codable, Sendable {
        struct Refused: Error {}
        init() {}
        init(from decoder: any Decoder) throws {}
        func encode(to encoder: any Encoder) throws { throw Refused() }
    }

    @Test("A model that does not encode beside metadata is named in the error, and nothing is written")
    func unencodableModelBesideMetadata() throws {
        let store = try Fixture().open()
        try store.set(1, forKey: "k", metadata: MetadataTests.info)
        do {
            try store.set(Unencodable(), forKey: "k", metadata: MetadataTests.info)
            Issue.record("expected encodingFailed")
        } catch let ModelStoreError.encodingFailed(key, type, message) {
            #expect(key == "k")
            #expect(type.contains("Unencodable"))
            #expect(!message.contains("metadata"))
        }
        #expect(try store.object(Int.self, forKey: "k") == 1)
        #expect(try store.metadata(MetadataTests.HTTPInfo.self, forKey: "k") == MetadataTests.info)
    }

    @Test("Metadata that does not encode beside a model is named in the error, whatever the model")
    func unencodableMetadataBesideModel() throws {
        let store = try Fixture().open()
        for model in [User.sample()] {
            do {
                try store.set(model, forKey: "k", metadata: Double.infinity)
                Issue.record("expected encodingFailed")
            } catch let ModelStoreError.encodingFailed(key, type, message) {
                #expect(key == "k")
                #expect(type == "Double")
                #expect(message.contains("the metadata does not encode"))
            }
        }
        // Both failing: the metadata comes first, as it is written first.
        #expect(throws: ModelStoreError.self) { try store.set(Unencodable(), forKey: "k", metadata: Double.nan) }
        #expect(try store.contains("k") == false)
    }

    @Test("Metadata longer than 127 bytes (a two-byte length) reads back beside its model's bytes")
    func longMetadata() throws {
        let store = try Fixture().open()
        for length in [0, 120, 123, 124, 125, 126, 127, 128, 300, 20_000] {
            let info = MetadataTests.HTTPInfo(etag: String(repeating: "e", count: length), lastModified: nil)
            let key = "k\(length)"
            try store.set(User.sample(), forKey: key, metadata: info)
            #expect(try store.metadata(MetadataTests.HTTPInfo.self, forKey: key) == info)
            #expect(try store.object(User.self, forKey: key) == User.sample())
            #expect(try MetadataTests.payload(store, key) == Array(try JSONModelCodec().encode(User.sample())))
            let entry = try #require(try store.entry(User.self, forKey: key))
            #expect(try entry.metadata(MetadataTests.HTTPInfo.self) == info)
        }
    }

    @Test("With record compression, only the model is compressed, after metadata of either length")
    func compressedModelAfterMetadata() throws {
        let store = try RecordCompressionTests.compressed(Fixture())
        try RecordCompressionTests.train(store)
        for length in [10, 300] {
            let info = MetadataTests.HTTPInfo(etag: String(repeating: "e", count: length), lastModified: nil)
            let profile = RecordCompressionTests.Profile.make(length)
            try store.set(profile, forKey: "k", metadata: info)
            #expect(RecordCompressionTests.isCompressed(try rawRecord(store, "k")))
            #expect(try store.object(RecordCompressionTests.Profile.self, forKey: "k") == profile)
            #expect(try store.metadata(MetadataTests.HTTPInfo.self, forKey: "k") == info)
        }
    }

    @Test("Metadata of a concrete type (the generic setters) writes the same record as the same value boxed")
    func concreteAndBoxedMetadataWriteTheSameRecord() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        let users = store.collection("users", policy: .highest)
        let info = MetadataTests.info
        let boxed: (any Codable & Sendable)? = info
        try store.set(User.sample(), forKey: "concrete", metadata: info)
        try store.set(User.sample(), forKey: "boxed", metadata: boxed)
        try store.set(User.sample(), forKey: "concrete-60", expiresAfter: 60, metadata: info)
        try store.set(User.sample(), forKey: "boxed-60", expiresAfter: 60, metadata: boxed)
        try users.set(User.sample(), forKey: "concrete", metadata: info)
        try users.set(User.sample(), forKey: "boxed", metadata: boxed)
        try users.set(User.sample(), forKey: "concrete-60", expiresAfter: 60, metadata: info)
        try users.set(User.sample(), forKey: "boxed-60", expiresAfter: 60, metadata: boxed)
        try store.write { batch in
            try batch.set(User.sample(), forKey: "batch-concrete", metadata: info)
            try batch.set(User.sample(), forKey: "batch-boxed", metadata: boxed)
            try batch.set(User.sample(), forKey: "batch-concrete-60", expiresAfter: 60, metadata: info)
            try batch.set(User.sample(), forKey: "batch-boxed-60", expiresAfter: 60, metadata: boxed)
            try batch.set(User.sample(), forKey: "in-concrete", in: "users", metadata: info)
            try batch.set(User.sample(), forKey: "in-boxed", in: "users", metadata: boxed)
            try batch.set(User.sample(), forKey: "in-collection-concrete", in: users, metadata: info)
            try batch.set(User.sample(), forKey: "in-collection-boxed", in: users, metadata: boxed)
        }
        for (concrete, boxed) in [("concrete", "boxed"), ("concrete-60", "boxed-60"), ("batch-concrete", "batch-boxed"),
                                  ("batch-concrete-60", "batch-boxed-60")] {
            // The checksum covers the key, so it is left out.
            func unsealed(_ key: String) throws -> [UInt8] {
                var record = try #require(try rawRecord(store, key))
                record.replaceSubrange(RecordHeader.checksumOffset..<(RecordHeader.checksumOffset + 4), with: [0, 0, 0, 0])
                return record
            }
            #expect(try unsealed(concrete) == unsealed(boxed))
        }
        for (concrete, boxed) in [("concrete", "boxed"), ("concrete-60", "boxed-60"), ("in-concrete", "in-boxed"),
                                  ("in-collection-concrete", "in-collection-boxed")] {
            #expect(try users.metadata(MetadataTests.HTTPInfo.self, forKey: concrete) == info)
            #expect(try users.entry(User.self, forKey: concrete)?.expiresAt == users.entry(User.self, forKey: boxed)?.expiresAt)
        }
        // nil still means no metadata: a literal (through the boxed setters) or an optional of the
        // metadata's type (through the generic ones), which compiles as before, without ambiguity.
        let noInfo: MetadataTests.HTTPInfo? = nil
        let someInfo: MetadataTests.HTTPInfo? = info
        try store.set(User.sample(), forKey: "none", metadata: nil)
        try store.set(User.sample(), forKey: "none-typed", metadata: noInfo)
        try store.set(User.sample(), forKey: "none-typed-60", expiresAfter: 60, metadata: noInfo)
        try users.set(User.sample(), forKey: "none-typed", metadata: noInfo)
        try store.write { batch in
            try batch.set(User.sample(), forKey: "none-batch", metadata: noInfo)
            try batch.set(User.sample(), forKey: "none-batch-in", in: "users", metadata: noInfo)
            try batch.set(User.sample(), forKey: "some-batch", metadata: someInfo)
        }
        for key in ["none", "none-typed", "none-typed-60", "none-batch"] {
            #expect(try store.metadata(MetadataTests.HTTPInfo.self, forKey: key) == nil)
            #expect(try MetadataTests.header(store, key).metadataCodec == nil)
            #expect(try store.object(User.self, forKey: key) == User.sample())
        }
        for key in ["none-typed", "none-batch-in"] {
            #expect(try users.metadata(MetadataTests.HTTPInfo.self, forKey: key) == nil)
            #expect(try users.object(User.self, forKey: key) == User.sample())
        }
        #expect(try store.metadata(MetadataTests.HTTPInfo.self, forKey: "some-batch") == info)
    }

    @Test("A record with metadata and tags, where the tag section sits between them, still reads back")
    func metadataWithTags() throws {
        let store = try Fixture().open()
        try store.set(User.sample(), forKey: "k", metadata: MetadataTests.info, tags: ["a", "b"])
        #expect(try store.metadata(MetadataTests.HTTPInfo.self, forKey: "k") == MetadataTests.info)
        #expect(try store.object(User.self, forKey: "k") == User.sample())
        #expect(try MetadataTests.payload(store, "k") == Array(try JSONModelCodec().encode(User.sample())))
    }
}
