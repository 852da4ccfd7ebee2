import Foundation
import Testing
@testable import ModelStore
import ModelStoreTestSupport

@Suite("Storing, reading and removing records")
struct RecordTests {
    @Test("A model round-trips through set and object, and both read spellings agree")
    func roundTrip() throws {
        let fixture = Fixture()
        let store = try fixture.open("userdb", policy: .low)
        try store.set(User.sample(), forKey: "user")
        let cached: User? = try store.object(forKey: "user")
        let same = try store.object(User.self, forKey: "user")
        #expect(cached == User.sample())
        #expect(same == cached)
    }

    @Test("A missing key reads as nil and contains is false")
    func missingKey() throws {
        let store = try Fixture().open()
        #expect(try store.object(User.self, forKey: "nobody") == nil)
        #expect(try store.entry(User.self, forKey: "nobody") == nil)
        #expect(try store.contains("nobody") == false)
    }

    @Test("Records survive closing and reopening the database")
    func persistsAcrossReopen() throws {
        let fixture = Fixture()
        do {
            let store = try fixture.open()
            try store.set(User.sample(), forKey: "user")
            try store.close()
        }
        let reopened = try fixture.open()
        #expect(try reopened.object(User.self, forKey: "user") == User.sample())
    }

    @Test("The stored model is not changed by storing it: the timestamp lives in the version-3 envelope")
    func headerLayout() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        try store.set(User.sample(), forKey: "user", expiresAfter: 30)
        let raw = try #require(try rawRecord(store, "user"))
        #expect(raw[0] == RecordHeader.versionThree)
        #expect(raw[1] == RecordHeader.hasDeadlineFlag)
        #expect(raw[2] == ModelCodecIdentifier.json.rawValue)
        let payload = Data(raw[(RecordHeader.baseLengthV2 + RecordHeader.deadlineLength)...])
        #expect(try JSONDecoder().decode(User.self, from: payload) == User.sample())
    }

    @Test("The version-2 envelope's bytes are pinned: version, flags, codec, CRC-32C of key and value, times, metadata")
    func versionTwoBytesArePinned() throws {
        var header = RecordHeader(storedAt: 1.5, expiresAt: -2, codec: .binary)
        var bytes: [UInt8] = []
        header.writeVersionTwo(to: &bytes, hasMetadata: true, hasTags: false)
        let empty = UnsafeRawBufferPointer(start: nil, count: 0)
        RecordHeader.appendMetadataSection(codec: .json, bytes: empty, to: &bytes)
        bytes += [0x2A]
        Array("k".utf8).withUnsafeBytes { RecordHeader.seal(&bytes, key: $0) }
        var expectedCRC: UInt32 = 0
        (Array("k".utf8) + bytes[7...]).withUnsafeBytes { expectedCRC = CRC32C.portableChecksum($0) }
        let crc = withUnsafeBytes(of: expectedCRC.littleEndian) { Array($0) }
        #expect(bytes == [2, 0b011, 3] + crc + [0, 0, 0, 0, 0, 0, 0xF8, 0x3F, 0, 0, 0, 0, 0, 0, 0, 0xC0, 1, 1, 0x2A])
        let parsed = try #require(bytes.withUnsafeBytes { RecordHeader(parsing: $0) })
        header.length = 25
        header.metadataCodec = .json
        header.metadataRange = 25..<25
        header.storedChecksum = expectedCRC
        header.version = RecordHeader.versionTwo
        #expect(parsed == header)
    }

    @Test("The version-3 envelope's bytes are pinned: 0x33, flags, codec, CRC-32C of key and value, times, never flag")
    func versionThreeBytesArePinned() throws {
        func sealed(_ header: RecordHeader) -> [UInt8] {
            var bytes: [UInt8] = []
            header.writeVersionThree(to: &bytes, hasMetadata: true, hasTags: false)
            let empty = UnsafeRawBufferPointer(start: nil, count: 0)
            RecordHeader.appendMetadataSection(codec: .json, bytes: empty, to: &bytes)
            bytes += [0x2A]
            Array("k".utf8).withUnsafeBytes { RecordHeader.seal(&bytes, key: $0) }
            return bytes
        }
        /// The checksum written out here: the key, bytes 0..<3, bytes 7...end, in one pass.
        func crc(_ bytes: [UInt8]) -> [UInt8] {
            var expected: UInt32 = 0
            (Array("k".utf8) + bytes[..<3] + bytes[7...]).withUnsafeBytes { expected = CRC32C.portableChecksum($0) }
            return withUnsafeBytes(of: expected.littleEndian) { Array($0) }
        }
        let timed = sealed(RecordHeader(storedAt: 1.5, expiresAt: 2, codec: .binary))
        #expect(timed == [0x33, 0b0_0011, 3] + crc(timed)
            + [0, 0, 0, 0, 0, 0, 0xF8, 0x3F, 0, 0, 0, 0, 0, 0, 0, 0x40, 1, 1, 0x2A])
        let never = sealed(RecordHeader(storedAt: 1.5, lifetime: RecordHeader.neverLifetime, codec: .binary))
        #expect(never == [0x33, 0b1_0010, 3] + crc(never) + [0, 0, 0, 0, 0, 0, 0xF8, 0x3F, 1, 1, 0x2A])
        let parsed = try #require(never.withUnsafeBytes { RecordHeader(parsing: $0) })
        #expect(parsed.version == 0x33)
        #expect(parsed.formatNumber == 3)
        #expect(parsed.neverExpires)
        #expect(parsed.expiresAt == nil)
        #expect(parsed.deadline(timeToLive: 10) == nil)
        #expect(parsed.length == 17)
        // The version byte is three bit flips from 1 and from 2: one flip never makes an older format.
        #expect((RecordHeader.versionThree ^ RecordHeader.versionOne).nonzeroBitCount == 3)
        #expect((RecordHeader.versionThree ^ RecordHeader.versionTwo).nonzeroBitCount == 3)
        // A deadline and "never expires" together is no envelope a writer makes.
        var both = never
        both[1] |= RecordHeader.hasDeadlineFlag
        both.insert(contentsOf: [0, 0, 0, 0, 0, 0, 0, 0x40], at: 15)
        Array("k".utf8).withUnsafeBytes { RecordHeader.seal(&both, key: $0) }
        #expect(both.withUnsafeBytes { RecordHeader(parsing: $0) } == nil)
    }

    @Test("Version-1 header bytes still parse: version, flags, codec, then little-endian Float64 times")
    func versionOneBytesStillParse() throws {
        let withDeadline: [UInt8] = [1, 1, 3, 0, 0, 0, 0, 0, 0, 0xF8, 0x3F, 0, 0, 0, 0, 0, 0, 0, 0xC0]
        let parsed = try #require(withDeadline.withUnsafeBytes { RecordHeader(parsing: $0) })
        #expect(parsed.version == 1)
        #expect(parsed.storedAt == 1.5)
        #expect(parsed.expiresAt == -2)
        #expect(parsed.codec == .binary)
        #expect(parsed.length == 19)
        #expect(parsed.storedChecksum == nil)
        let plain: [UInt8] = [1, 0, 1, 0, 0, 0, 0, 0, 0, 0xF8, 0x3F]
        #expect(plain.withUnsafeBytes { RecordHeader(parsing: $0) }?.length == 11)
    }

    @Test("The empty key is refused with invalidKey")
    func emptyKey() throws {
        let store = try Fixture().open()
        #expect(errorCase { try store.set(1, forKey: "") } == "invalidKey")
        #expect(errorCase { _ = try store.object(Int.self, forKey: "") } == "invalidKey")
        #expect(errorCase { _ = try store.contains("") } == "invalidKey")
        #expect(errorCase { try store.removeObject(forKey: "") } == "invalidKey")
    }

    @Test("A key longer than the maximum is refused with invalidKey; the maximum itself works")
    func hugeKey() throws {
        let store = try Fixture().open()
        let longest = String(repeating: "k", count: ModelStore.maximumKeyLength)
        try store.set(1, forKey: longest)
        #expect(try store.object(Int.self, forKey: longest) == 1)
        #expect(errorCase { try store.set(1, forKey: longest + "k") } == "invalidKey")
    }

    @Test("Keys with NUL bytes and Unicode are stored exactly and kept apart")
    func unusualKeys() throws {
        let store = try Fixture().open()
        let keys = ["a\0b", "a\0c", "a", "\0", "ключ", "鍵", "🔑", "e\u{301}", "\u{e9}", " ", "\n"]
        for (index, key) in keys.enumerated() {
            try store.set(index, forKey: key)
        }
        for (index, key) in keys.enumerated() {
            #expect(try store.object(Int.self, forKey: key) == index, "key \(key.debugDescription)")
        }
    }

    @Test("Empty values round-trip: an empty string, array and struct are not 'missing'")
    func emptyValues() throws {
        struct Empty: Codable, Equatable {}
        let store = try Fixture().open()
        try store.set("", forKey: "string")
        try store.set([Int](), forKey: "array")
        try store.set(Empty(), forKey: "struct")
        #expect(try store.object(String.self, forKey: "string") == "")
        #expect(try store.object([Int].self, forKey: "array") == [])
        #expect(try store.object(Empty.self, forKey: "struct") == Empty())
        #expect(try store.contains("string"))
    }

    @Test("A large value (8 MiB) round-trips exactly")
    func largeValue() throws {
        let store = try Fixture().open()
        var bytes = [UInt8](repeating: 0, count: 8 << 20)
        for index in bytes.indices { bytes[index] = UInt8(truncatingIfNeeded: index &* 31 &+ index >> 7) }
        let data = Data(bytes)
        try store.set(data, forKey: "blob")
        #expect(try store.object(Data.self, forKey: "blob") == data)
    }

    @Test("A record that no longer decodes as the asked type throws decodingFailed naming key and type")
    func decodeMismatch() throws {
        struct Other: Codable { var count: Int }
        let store = try Fixture().open()
        try store.set(User.sample(), forKey: "user")
        do {
            _ = try store.object(Other.self, forKey: "user")
            Issue.record("expected decodingFailed")
        } catch let ModelStoreError.decodingFailed(key, type, message) {
            #expect(key == "user")
            #expect(type == "Other")
            #expect(message.contains("count"))
        }
        // The record is untouched and still readable as its real type.
        #expect(try store.object(User.self, forKey: "user") == User.sample())
    }

    @Test("An encoding failure throws encodingFailed and writes nothing")
    func encodingFailure() throws {
        let store = try Fixture().open()
        try store.set(1.0, forKey: "n")
        #expect(errorCase { try store.set(Double.nan, forKey: "n") } == "encodingFailed")
        #expect(try store.object(Double.self, forKey: "n") == 1.0)
    }

    @Test("A damaged record header throws decodingFailed, never crashes")
    func damagedHeader() throws {
        let store = try Fixture().open()
        try store.database.write { engine in
            try [UInt8]("k".utf8).withUnsafeBytes { key in
                try [UInt8]([9, 9]).withUnsafeBytes { value in try engine.put(key: key, value: value, sync: false) }
            }
        }
        #expect(errorCase { _ = try store.object(User.self, forKey: "k") } == "decodingFailed")
    }

    @Test("removeObject removes one record; removing a missing key succeeds")
    func removeOne() throws {
        let store = try Fixture().open()
        try store.set(1, forKey: "a")
        try store.set(2, forKey: "b")
        try store.removeObject(forKey: "a")
        try store.removeObject(forKey: "never-stored")
        #expect(try store.contains("a") == false)
        #expect(try store.object(Int.self, forKey: "b") == 2)
    }

    @Test("removeObjects(forKeys:) removes all listed keys, and none if a key is invalid")
    func removeMany() throws {
        let store = try Fixture().open()
        for key in ["a", "b", "c"] { try store.set(key, forKey: key) }
        #expect(errorCase { try store.removeObjects(forKeys: ["a", ""]) } == "invalidKey")
        #expect(try store.contains("a"))
        try store.removeObjects(forKeys: ["a", "b"])
        #expect(try store.contains("a") == false)
        #expect(try store.contains("b") == false)
        #expect(try store.contains("c"))
    }

    @Test("removeObjects(withPrefix:) removes exactly the keys with the prefix, across chunks")
    func removePrefix() throws {
        let store = try Fixture().open()
        for index in 0..<25_000 { try store.set(index, forKey: "feed:\(index)") }
        try store.set(1, forKey: "feed")       // shorter than the prefix
        try store.set(2, forKey: "feed;")      // the byte after ':'
        try store.set(3, forKey: "fee")
        let removed = try store.removeObjects(withPrefix: "feed:")
        #expect(removed == 25_000)
        #expect(try store.contains("feed:0") == false)
        #expect(try store.contains("feed:24999") == false)
        #expect(try store.object(Int.self, forKey: "feed") == 1)
        #expect(try store.object(Int.self, forKey: "feed;") == 2)
        #expect(try store.object(Int.self, forKey: "fee") == 3)
    }

    @Test("removeAllObjects empties the store, which stays usable")
    func removeAll() throws {
        let store = try Fixture().open()
        for index in 0..<100 { try store.set(index, forKey: "k\(index)") }
        #expect(try store.removeAllObjects() == 100)
        #expect(try store.contains("k0") == false)
        try store.set(7, forKey: "after")
        #expect(try store.object(Int.self, forKey: "after") == 7)
    }

    @Test("A store written with one built-in codec reads records written by another")
    func readsOtherBuiltInCodecs() throws {
        let fixture = Fixture()
        do {
            let plist = try fixture.open(codec: PropertyListModelCodec())
            try plist.set(User.sample(), forKey: "user")
            try plist.close()
        }
        let json = try fixture.open(codec: JSONModelCodec())
        #expect(try json.object(User.self, forKey: "user") == User.sample())
    }

    @Test("A record from an unknown custom codec throws decodingFailed instead of guessing")
    func unknownCustomCodec() throws {
        struct Reversed: ModelCodec {
            var identifier: ModelCodecIdentifier { .custom(7) }
            func encode<Value: Encodable>(_ value: Value) throws -> Data { Data(try JSONEncoder().encode(value).reversed()) }
            func decode<Value: Decodable>(_ type: Value.Type, from data: Data) throws -> Value {
                try JSONDecoder().decode(type, from: Data(data.reversed()))
            }
        }
        let fixture = Fixture()
        do {
            let custom = try fixture.open(codec: Reversed())
            try custom.set(User.sample(), forKey: "user")
            #expect(try custom.object(User.self, forKey: "user") == User.sample())
            try custom.close()
        }
        let json = try fixture.open()
        #expect(errorCase { _ = try json.object(User.self, forKey: "user") } == "decodingFailed")
    }

}
