import Foundation
import Testing
@testable import ModelStore
import ModelStoreTestSupport

/// The store-level behaviours every built-in codec must share, so any of them can be the
/// store's codec.
@Suite("Store behaviour with every codec")
struct CodecConformanceTests {
    enum Codec: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case json, propertyList, binary

        var codec: any ModelCodec {
            switch self {
            case .json: return JSONModelCodec()
            case .propertyList: return PropertyListModelCodec()
            case .binary: return BinaryModelCodec()
            }
        }

        var testDescription: String { rawValue }
    }

    struct ProfileV1: Codable, Equatable {
        var id: Int
        var name: String
        var joined: Date
        var tags: [String]
        var retired: String
    }

    struct ProfileV2: Codable, Equatable {
        var id: Int
        var name: String
        var joined: Date
        var tags: [String]
        var nickname: String?      // added later, optional
        var score: Double          // added later, with a default when missing

        init(id: Int, name: String, joined: Date, tags: [String], nickname: String?, score: Double) {
            (self.id, self.name, self.joined, self.tags, self.nickname, self.score) = (id, name, joined, tags, nickname, score)
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decode(Int.self, forKey: .id)
            name = try container.decode(String.self, forKey: .name)
            joined = try container.decode(Date.self, forKey: .joined)
            tags = try container.decode([String].self, forKey: .tags)
            nickname = try container.decodeIfPresent(String.self, forKey: .nickname)
            score = try container.decodeIfPresent(Double.self, forKey: .score) ?? 0
        }
    }

    static let joined = Date(timeIntervalSinceReferenceDate: 700_000_000.25)

    @Test("Models round-trip exactly", arguments: Codec.allCases)
    func roundTrip(codec: Codec) throws {
        let store = try Fixture().open(codec: codec.codec)
        let user = User(userName: "ünï\0cødé 🙂", book: Book(name: "", price: -0.0))
        try store.set(user, forKey: "user")
        try store.set([1, 2, 3], forKey: "array")
        try store.set(["a": 1.5], forKey: "dictionary")
        #expect(try store.object(User.self, forKey: "user") == user)
        #expect(try store.object([Int].self, forKey: "array") == [1, 2, 3])
        #expect(try store.object([String: Double].self, forKey: "dictionary") == ["a": 1.5])
        #expect(try store.entry(User.self, forKey: "user")?.byteCount ?? 0 > RecordHeader.baseLengthV2)
    }

    @Test("A record written by an older model decodes into the newer one", arguments: Codec.allCases)
    func olderRecordIntoNewerModel(codec: Codec) throws {
        let store = try Fixture().open(codec: codec.codec)
        try store.set(ProfileV1(id: 7, name: "ada", joined: Self.joined, tags: ["x"], retired: "gone"), forKey: "p")
        let upgraded = try store.object(ProfileV2.self, forKey: "p")
        #expect(upgraded == ProfileV2(id: 7, name: "ada", joined: Self.joined, tags: ["x"], nickname: nil, score: 0))
    }

    @Test("A record written by a newer model decodes into an older one that lacks its fields",
          arguments: Codec.allCases)
    func newerRecordIntoOlderModel(codec: Codec) throws {
        struct Narrow: Codable, Equatable { var id: Int; var name: String }
        let store = try Fixture().open(codec: codec.codec)
        try store.set(ProfileV2(id: 1, name: "bob", joined: Self.joined, tags: [], nickname: "b", score: 2), forKey: "p")
        #expect(try store.object(Narrow.self, forKey: "p") == Narrow(id: 1, name: "bob"))
    }

    @Test("A record of another shape throws decodingFailed naming the missing field", arguments: Codec.allCases)
    func mismatch(codec: Codec) throws {
        let store = try Fixture().open(codec: codec.codec)
        try store.set(Book(name: "b", price: 1), forKey: "k")
        do {
            _ = try store.object(User.self, forKey: "k")
            Issue.record("expected decodingFailed")
        } catch let ModelStoreError.decodingFailed(key, type, message) {
            #expect(key == "k")
            #expect(type == "User")
            #expect(message.contains("userName"))
        }
    }

    @Test("Batches, imports, enumeration and sweeps work the same", arguments: Codec.allCases)
    func bulkPaths(codec: Codec) async throws {
        let fixture = Fixture()
        let store = try fixture.open(policy: .high, codec: codec.codec)
        try await store.importObjects((0..<2_000).map { Book(name: "b\($0)", price: Double($0)) }, key: \.name)
        try store.write { batch in try batch.set(Book(name: "extra", price: 1), forKey: "extra") }
        let cursor = try store.entries(Book.self, in: .prefix("b19"))
        var names: [String] = []
        while let entry = try cursor.next() { names.append(entry.value.name) }
        #expect(names.count == 111)
        #expect(names == names.sorted())
        fixture.clock.advance(by: 60)
        #expect(try store.removeExpiredObjects() == 2_001)
    }

    @Test("Every store reads records written with any built-in codec",
          arguments: Codec.allCases, Codec.allCases)
    func crossCodec(writer: Codec, reader: Codec) throws {
        let fixture = Fixture()
        let written = ProfileV2(id: 3, name: "c", joined: Self.joined, tags: ["t"], nickname: nil, score: 1.5)
        do {
            let store = try fixture.open(codec: writer.codec)
            try store.set(written, forKey: "p")
            try store.close()
        }
        let store = try fixture.open(codec: reader.codec)
        #expect(try store.object(ProfileV2.self, forKey: "p") == written)
    }
}
