import Foundation
import Testing
@testable import ModelStoreCodecs
import ModelStoreTestSupport

/// Crafted property lists never crash a reader and never take long: they throw `DecodingError.dataCorrupted` before
/// Foundation's recursive parsers see them, while every property list Foundation writes still reads back.
@Suite("Property lists: checked before Foundation parses them", .timeLimit(.minutes(5)))
struct PropertyListValidatorTests {
    /// A model that reads nested arrays however deep they go, as recursive models do.
    struct Nest: Codable, Equatable {
        var children: [Nest]

        init(children: [Nest] = []) {
            self.children = children
        }

        init(from decoder: any Decoder) throws {
            var container = try decoder.unkeyedContainer()
            children = []
            while !container.isAtEnd { children.append(try container.decode(Nest.self)) }
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.unkeyedContainer()
            for child in children { try container.encode(child) }
        }

        static func deep(_ depth: Int) -> Nest {
            (1..<depth).reduce(Nest()) { inner, _ in Nest(children: [inner]) }
        }
    }

    static let codec = PropertyListModelCodec()

    static func isDataCorrupted(_ error: any Error) -> Bool {
        guard case DecodingError.dataCorrupted = error else { return false }
        return true
    }

    static func xml(arrays depth: Int) -> Data {
        Data((#"<?xml version="1.0" encoding="UTF-8"?><plist version="1.0">"#
            + String(repeating: "<array>", count: depth) + String(repeating: "</array>", count: depth) + "</plist>")
            .utf8)
    }

    /// A binary property list: `objects` (each an encoded object) in order, one-byte offsets and references.
    static func bplist(_ objects: [[UInt8]], top: UInt8 = 0, offsetSize: UInt8 = 1, referenceSize: UInt8 = 1)
        -> [UInt8]
    {
        var bytes = Array("bplist00".utf8)
        var offsets: [Int] = []
        for object in objects {
            offsets.append(bytes.count)
            bytes += object
        }
        let table = bytes.count
        for offset in offsets {
            bytes += (0..<Int(offsetSize)).reversed().map { UInt8(truncatingIfNeeded: offset >> (8 * $0)) }
        }
        func u64(_ value: Int) -> [UInt8] { (0..<8).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        bytes += [0, 0, 0, 0, 0, 0, offsetSize, referenceSize] + u64(objects.count) + u64(Int(top)) + u64(table)
        return bytes
    }

    @Test func oneHundredThousandNestedXMLArraysThrowDataCorrupted() {
        let data = Self.xml(arrays: 100_000)
        #expect(performing: { try Self.codec.decode(Nest.self, from: data) }, throws: Self.isDataCorrupted)
        #expect(performing: { try Self.codec.decode(Int.self, from: data) }, throws: Self.isDataCorrupted)
    }

    @Test func aBinaryArrayThatContainsItselfThrowsDataCorrupted() {
        // Object 0 is an array holding object 0; then a two-object cycle through a dictionary.
        let selfLoop = Self.bplist([[0xA1, 0x00]])
        let twoCycle = Self.bplist([[0xA1, 0x01], [0xD1, 0x02, 0x00], [0x51, UInt8(ascii: "k")]])
        for bytes in [selfLoop, twoCycle] {
            #expect(performing: { try Self.codec.decode(Nest.self, from: Data(bytes)) }, throws: Self.isDataCorrupted)
        }
    }

    /// Forty arrays, each holding the next one twice: 2^40 paths through 40 objects.
    @Test func sharedSubtreesThatMultiplyTheWorkThrowDataCorrupted() {
        var objects: [[UInt8]] = []
        for index in 0..<39 {
            let next = UInt8(index + 1)
            objects.append([0xA2, next, next])
        }
        objects.append([0xA0])
        #expect(performing: { try Self.codec.decode(Nest.self, from: Data(Self.bplist(objects))) },
                throws: Self.isDataCorrupted)
    }

    @Test func hostileTrailersAndOffsetsThrowDataCorrupted() {
        let valid = Self.bplist([[0xA1, 0x01], [0xA0]])
        #expect(throws: Never.self) { try Self.codec.decode(Nest.self, from: Data(valid)) }
        var cases: [[UInt8]] = [
            Self.bplist([[0xA1, 0x05], [0xA0]]),  // a reference past the last object
            Self.bplist([[0xA1, 0x01], [0xA0]], top: 7),  // no such top object
            Self.bplist([[0xAF, 0x13, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]]),  // a huge count
            Self.bplist([[0x5F, 0x10, 0xFF]]),  // a string longer than the data
            Self.bplist([[0x77]]),  // an unknown marker
            Array(valid.prefix(20)),  // truncated
        ]
        var badTable = valid
        badTable[badTable.count - 1] = 0xF0  // offset table past the end
        var badOffset = valid
        badOffset[badOffset.count - 33] = 0xFF  // the second object's offset points into the trailer
        var badSizes = valid
        badSizes[badSizes.count - 26] = 0  // offset size 0
        cases += [badTable, badOffset, badSizes]
        for bytes in cases {
            #expect(performing: { try Self.codec.decode(Nest.self, from: Data(bytes)) }, throws: Self.isDataCorrupted)
        }
    }

    /// Every truncation and thousands of random corruptions of a real record: each throws or decodes, none crashes.
    @Test func randomDamageToARealRecordNeverCrashes() throws {
        struct Record: Codable { var name: String; var tags: [String]; var scores: [String: Double]; var nest: Nest }
        let record = Record(
            name: "Ada é 🌍", tags: ["a", "b", "a"], scores: ["x": 1.5, "y": -2], nest: .deep(5))
        let original = Array(try Self.codec.encode(record))
        for length in 0..<original.count {
            _ = try? Self.codec.decode(Record.self, from: Data(original.prefix(length)))
        }
        var random = SeededGenerator(seed: 0x9115)
        for _ in 0..<3000 {
            var bytes = original
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                let offset = Int.random(in: 0..<bytes.count, using: &random)
                bytes[offset] = UInt8.random(in: 0...255, using: &random)
            }
            _ = try? Self.codec.decode(Record.self, from: Data(bytes))
            _ = try? Self.codec.decode(Nest.self, from: Data(bytes))
        }
    }

    @Test func nestingUpToTheLimitReadsAndOneMoreThrows() throws {
        func nestedArrays(_ depth: Int) -> Any { (1..<depth).reduce([Any]()) { inner, _ in [inner] } }
        for format in [PropertyListSerialization.PropertyListFormat.binary, .xml] {
            let atLimit = try PropertyListSerialization.data(fromPropertyList: nestedArrays(512), format: format, options: 0)
            #expect(try Self.codec.decode(Nest.self, from: atLimit) == .deep(512))
            let past = try PropertyListSerialization.data(fromPropertyList: nestedArrays(513), format: format, options: 0)
            #expect(performing: { try Self.codec.decode(Nest.self, from: past) }, throws: Self.isDataCorrupted)
        }
    }

    @Test func propertyListsFoundationWritesStillRead() throws {
        struct Model: Codable, Equatable { var id: Int; var name: String; var data: Data; var date: Date; var list: [Double] }
        let model = Model(id: 7, name: "x\u{0}y 🌍", data: Data([1, 2]), date: Date(timeIntervalSince1970: 3), list: [1, 2])
        #expect(try Self.codec.decode(Model.self, from: Self.codec.encode(model)) == model)
        let xml = PropertyListEncoder()
        xml.outputFormat = .xml
        #expect(try Self.codec.decode(Model.self, from: xml.encode(model)) == model)
    }

    /// Foundation's XML plist scanner ends a `<!DOCTYPE` and a tag at the first `>`, quotes or not; a validator that
    /// skipped quoted text there would not see the arrays Foundation then parses.
    @Test func quotesInADeclarationOrATagDoNotHideNestedArraysFromTheCheck() {
        // 1,000 levels: past the limit, yet few enough that Foundation parses them rather than crashing the test.
        let arrays = String(repeating: "<array>", count: 1000) + String(repeating: "</array>", count: 1000)
        let hiding = [
            #"<?xml version="1.0"?><!DOCTYPE plist "><plist>"# + arrays + #"</plist><!-- "> -->"#,
            #"<plist version="1.0>"# + arrays + #"</plist><!-- " -->"#,
            #"<plist version='1.0>"# + arrays + #"</plist><!-- ' -->"#,
        ]
        for text in hiding {
            #expect(performing: { try Self.codec.decode(Nest.self, from: Data(text.utf8)) },
                    throws: Self.isDataCorrupted)
        }
    }

    @Test func otherFormatsThrowDataCorrupted() {
        for text in ["(1, 2)", "{ a = 1; }", "", "bplist", "<plist><array>"] {
            #expect(performing: { try Self.codec.decode([Int].self, from: Data(text.utf8)) },
                    throws: Self.isDataCorrupted)
        }
    }
}
