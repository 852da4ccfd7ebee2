import Foundation
import ModelStore
import Testing
import ModelStoreTestSupport

/// A crafted property-list record crashes no store that reads it, whatever the store's own codec.
@Suite("Property-list records: crafted payloads", .timeLimit(.minutes(5)))
struct PropertyListRecordTests {
    /// Reads nested arrays however deep they go, as recursive models do.
    struct Nest: Decodable {
        var children: [Nest]

        init(from decoder: any Decoder) throws {
            var container = try decoder.unkeyedContainer()
            children = []
            while !container.isAtEnd { children.append(try container.decode(Nest.self)) }
        }
    }

    /// Writes a `Data` value's bytes as they are, under the property-list identifier.
    struct RawPropertyList: ModelCodec {
        var identifier: ModelCodecIdentifier { .propertyList }
        func encode<Value: Encodable>(_ value: Value) throws -> Data { (value as? Data) ?? Data() }
        func decode<Value: Decodable>(_ type: Value.Type, from data: Data) throws -> Value {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "write-only"))
        }
    }

    /// 100,000 nested `<array>` elements, which overflow Foundation's XML parser. (Computed, as is
    /// ``cyclicBinary``: LeakSanitizer does not follow a static `Data`'s tagged storage pointer.)
    static var deepXML: Data {
        Data(
            (#"<?xml version="1.0" encoding="UTF-8"?><plist version="1.0">"#
                + String(repeating: "<array>", count: 100_000) + String(repeating: "</array>", count: 100_000)
                + "</plist>").utf8)
    }

    /// A binary property list whose only object, an array, contains itself.
    static var cyclicBinary: Data {
        var bytes = Array("bplist00".utf8) + [0xA1, 0x00] + [0x08]
        bytes += [0, 0, 0, 0, 0, 0, 1, 1] + [0, 0, 0, 0, 0, 0, 0, 1] + [UInt8](repeating: 0, count: 8)
        bytes += [0, 0, 0, 0, 0, 0, 0, 10]
        return Data(bytes)
    }

    @Test func aStoreReadingACraftedPropertyListRecordThrowsDecodingFailed() throws {
        let fixture = Fixture()
        do {
            let writer = try fixture.open(codec: RawPropertyList())
            try writer.set(Self.deepXML, forKey: "deep")
            try writer.set(Self.cyclicBinary, forKey: "cycle")
            try writer.close()
        }
        for codec in [JSONModelCodec(), BinaryModelCodec(), PropertyListModelCodec()] as [any ModelCodec] {
            let reader = try fixture.open(codec: codec)
            #expect(errorCase { _ = try reader.object(Nest.self, forKey: "deep") } == "decodingFailed")
            #expect(errorCase { _ = try reader.object(Nest.self, forKey: "cycle") } == "decodingFailed")
            try reader.close()
        }
    }
}
