import Foundation
import Testing
@testable import ModelStore
import ModelStoreTestSupport

/// Every bit of every record shape flipped in turn (issue 23, item 2): each flipped record is
/// written back through LevelDB, then every read API and a sweep meet it. The checksum covers
/// every byte of the value and the key, so every flip must read as `corrupted` naming the key
/// (never a value, never nil), count as present in `contains`, `count` and `keys`, and survive
/// every read and the sweep byte for byte: nothing deletes or rewrites a record it could not
/// verify.
@Suite("Bit-flip sweep over every record shape")
struct BitFlipSweepTests {
    struct HTTPInfo: Codable, Equatable, Sendable {
        var etag: String
    }

    /// A record shape: how the store is opened, how the record is written, where it lives.
    struct Shape: Sendable, CustomTestStringConvertible {
        var name: String
        var policy: UpdatePolicy = .never
        var codec: any ModelCodec = JSONModelCodec()
        var compressed = false
        /// The collection the record is in (nil: the store's own keys).
        var collection: String? = nil
        /// Seconds the clock moves after the write (to make the record expired).
        var advance: TimeInterval = 0
        /// Whether the record is expired once the clock moved.
        var expired = false
        /// The model stored.
        var model = User.sample()
        /// Writes `model` as the record `rec`.
        var write: @Sendable (ModelStore, User) throws -> Void

        var testDescription: String { name }
    }

    static let key = "rec"
    static let info = HTTPInfo(etag: "\"33a64df551425fcc55e4d42a148795d9f25f89d4\"")

    static let shapes: [Shape] = [
        Shape(name: "JSON, store policy", policy: .high) { try $0.set($1, forKey: key) },
        Shape(name: "JSON, deadline") { try $0.set($1, forKey: key, expiresAfter: 600) },
        Shape(name: "JSON, deadline passed", advance: 20, expired: true) {
            try $0.set($1, forKey: key, expiresAfter: 10)
        },
        Shape(name: "JSON, store policy passed", policy: .high, advance: 120, expired: true) {
            try $0.set($1, forKey: key)
        },
        Shape(name: "JSON, metadata") { try $0.set($1, forKey: key, metadata: info) },
        Shape(name: "JSON, tags and metadata", policy: .high) {
            try $0.set($1, forKey: key, expiresAfter: 600, metadata: info, tags: ["team:7", "org:1"])
        },
        Shape(name: "binary, deadline and metadata", codec: BinaryModelCodec()) {
            try $0.set($1, forKey: key, expiresAfter: 600, metadata: info)
        },
        Shape(name: "property list, metadata", policy: .low, codec: PropertyListModelCodec()) {
            try $0.set($1, forKey: key, metadata: info)
        },
        Shape(name: "never-expiring collection", policy: .highest, collection: "forever") {
            try $0.collection("forever", policy: .never).set($1, forKey: key)
        },
        Shape(name: "binary, never-expiring collection, tags", policy: .highest, codec: BinaryModelCodec(),
              collection: "forever") {
            try $0.collection("forever", policy: .never).set($1, forKey: key, tags: ["t"])
        },
        Shape(name: "collection with a policy, metadata", collection: "sessions") {
            try $0.collection("sessions", policy: .custom(300)).set($1, forKey: key, metadata: info)
        },
        // Text the dictionary (trained on other models) still shrinks, so the model is stored compressed.
        Shape(name: "compressed, metadata", compressed: true, model: User(
            userName: String(repeating: "Ada Lovelace writes about systems that keep data safe. ", count: 4),
            book: Book(name: "Notes", price: 1))) {
            try $0.set($1, forKey: key, expiresAfter: 600, metadata: info)
        },
    ]

    /// What a read of the damaged record gave, when it was not `corrupted` naming the key.
    static func unexpected(_ body: () throws -> Any?) -> String? {
        do {
            let value = try body()
            return "returned \(value.map { "\($0)" } ?? "nil")"
        } catch let ModelStoreError.corrupted(_, message) {
            return message.contains("\"\(key)\"") ? nil : "corrupted without the key: \(message)"
        } catch {
            return "threw \(error)"
        }
    }

    static func open(_ shape: Shape, _ fixture: Fixture) throws -> ModelStore {
        var configuration = fixture.quietConfiguration  // reads of damaged records may log by design
        configuration.codec = shape.codec
        if shape.compressed {
            configuration.recordCompression = .zstd(dictionarySampleCount: RecordCompressionTests.sampleCount)
        }
        return try ModelStore(name: "db", policy: shape.policy, configuration: configuration)
    }

    @Test(
        "Every bit of every record shape flipped: corrupted or present, never a value, nil or a deletion", .long,
        arguments: shapes)
    func everyBitOfEveryShape(shape: Shape) throws {
        let fixture = Fixture()
        let store = try Self.open(shape, fixture)
        if shape.compressed { try RecordCompressionTests.train(store) }
        try shape.write(store, shape.model)
        fixture.clock.advance(by: shape.advance)
        let intact = try #require(try rawRecord(store, Self.key, in: shape.collection))
        #expect(intact[0] == RecordHeader.versionThree)
        if shape.compressed { #expect(RecordCompressionTests.isCompressed(intact)) }
        #expect(intact.count > 50)
        let failures = try Self.flipEveryBit(of: intact, shape: shape, store: store)
        #expect(failures.isEmpty, "\(failures.count) of \(intact.count * 8) flips failed, first: \(failures.prefix(5))")
        // The intact record put back reads right: live, or expired and then deleted by that read
        // (it verifies).
        try putRawRecord(store, Self.key, in: shape.collection, intact)
        let reads = ReadSurface(store: store, collection: shape.collection)
        if shape.expired {
            #expect(try reads.object() == nil)
            #expect(try rawRecord(store, Self.key, in: shape.collection) == nil)
        } else {
            #expect(try reads.object() == shape.model)
            #expect(try reads.contains())
        }
        try store.close()
    }

    /// The public reads of one key, in the store's own keys or in a collection.
    struct ReadSurface {
        let store: ModelStore
        let collection: String?

        var view: ModelStore.Collection? { collection.map { store.collection($0) } }

        func object() throws -> User? {
            try view?.object(User.self, forKey: key) ?? store.object(User.self, forKey: key)
        }

        func contains() throws -> Bool {
            try view?.contains(key) ?? store.contains(key)
        }

        /// Every read, by name: each must throw `corrupted` for a damaged record.
        var trustedReads: [(String, () throws -> Any?)] {
            if let view {
                return [
                    ("object", { try view.object(User.self, forKey: key) }),
                    ("entry", { try view.entry(User.self, forKey: key) }),
                    ("entry includingExpired", { try view.entry(User.self, forKey: key, includingExpired: true) }),
                    ("metadata", { try view.metadata(HTTPInfo.self, forKey: key) }),
                    ("entries", { try view.entries(User.self, in: .prefix(key)).collect() }),
                    ("objects forKeys", { try view.objects(User.self, forKeys: [key]) }),
                    ("refresh", { try view.refresh(forKey: key) }),
                    ("replaceMetadata", { try view.replaceMetadata(info, forKey: key) }),
                ]
            }
            return [
                ("object", { try store.object(User.self, forKey: key) }),
                ("entry", { try store.entry(User.self, forKey: key) }),
                ("entry includingExpired", { try store.entry(User.self, forKey: key, includingExpired: true) }),
                ("metadata", { try store.metadata(HTTPInfo.self, forKey: key) }),
                ("entries", { try store.entries(User.self, in: .prefix(key)).collect() }),
                ("objects forKeys", { try store.objects(User.self, forKeys: [key]) }),
                ("refresh", { try store.refresh(forKey: key) }),
                ("replaceMetadata", { try store.replaceMetadata(info, forKey: key) }),
                ("snapshot object", { try store.snapshot().object(User.self, forKey: key) }),
            ]
        }

        func count() throws -> Int {
            try view?.count(in: .prefix(key)) ?? store.count(in: .prefix(key))
        }

        func keys() throws -> [String] {
            try (view?.keys(in: .prefix(key)) ?? store.keys(in: .prefix(key))).collect()
        }
    }

    /// Flips each bit of `intact` in turn, writes it back raw, and returns what went wrong.
    static func flipEveryBit(of intact: [UInt8], shape: Shape, store: ModelStore) throws -> [String] {
        let reads = ReadSurface(store: store, collection: shape.collection)
        var failures: [String] = []
        for bit in 0..<(intact.count * 8) {
            var damaged = intact
            damaged[bit / 8] ^= 1 << (bit % 8)
            try putRawRecord(store, key, in: shape.collection, damaged)
            let at = "byte \(bit / 8) bit \(bit % 8)"
            for (name, read) in reads.trustedReads {
                if let problem = unexpected(read) { failures.append("\(at) \(name): \(problem)") }
            }
            // A damaged record counts as present, whatever its envelope now says about expiry.
            if try !reads.contains() { failures.append("\(at) contains: false") }
            if try reads.count() != 1 { failures.append("\(at) count: \(try reads.count())") }
            if try reads.keys() != [key] { failures.append("\(at) keys: \(try reads.keys())") }
            let removed = try store.removeExpiredObjects()
            if removed != 0 { failures.append("\(at) sweep removed \(removed)") }
            if try rawRecord(store, key, in: shape.collection) != damaged {
                failures.append("\(at): the damaged record was deleted or rewritten")
                try putRawRecord(store, key, in: shape.collection, damaged)
            }
        }
        return failures
    }
}
