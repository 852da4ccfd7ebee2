import Foundation
import ModelStoreCodecs
import Testing

extension BinaryCodecTests {
    @Suite("BinaryModelCodec errors")
    struct Errors {
        struct Counter: Codable { var count: Int }
        struct SmallCounter: Codable { var count: UInt8 }
        struct SignedSmall: Codable { var count: Int8 }
        struct Named: Codable { var count: String }
        struct Outer: Codable { var inner: Inner }
        struct Inner: Codable { var values: [Int] }
        struct OuterStrings: Codable { var inner: InnerStrings }
        struct InnerStrings: Codable { var values: [String] }

        @Test func overflowOnDecodeThrowsDataCorrupted() throws {
            let stored = try codec.encode(Counter(count: 300))
            #expect {
                try codec.decode(SmallCounter.self, from: stored)
            } throws: { error in
                guard case DecodingError.dataCorrupted(let context) = error else { return false }
                return context.codingPath.map(\.stringValue) == ["count"] && context.debugDescription.contains("300")
            }
        }

        @Test(arguments: [-1, 128, 256, -129, Int.min, Int.max])
        func outOfRangeIntegersThrowForSmallerTypes(_ value: Int) throws {
            let stored = try codec.encode(Counter(count: value))
            if !(0...255).contains(value) {
                #expect(throws: DecodingError.self) { try codec.decode(SmallCounter.self, from: stored) }
            }
            if !(-128...127).contains(value) {
                #expect(throws: DecodingError.self) { try codec.decode(SignedSmall.self, from: stored) }
            }
            #expect(try codec.decode(Counter.self, from: stored).count == value)
        }

        @Test func fractionalNumberThrowsWhenReadAsInteger() throws {
            struct Ratio: Codable { var count: Double }
            let stored = try codec.encode(Ratio(count: 1.5))
            #expect(throws: DecodingError.self) { try codec.decode(Counter.self, from: stored) }
            // A whole number stored as a Double is still a fine Int.
            #expect(try codec.decode(Counter.self, from: codec.encode(Ratio(count: 2))).count == 2)
        }

        @Test func typeMismatchNamesTheFieldInTheCodingPath() throws {
            let stored = try codec.encode(Counter(count: 3))
            #expect {
                try codec.decode(Named.self, from: stored)
            } throws: { error in
                guard let error = error as? DecodingError, case .typeMismatch = error else { return false }
                return pathStrings(error) == ["count"]
            }
        }

        @Test func typeMismatchDeepInsideAnArrayReportsTheIndex() throws {
            let stored = try codec.encode(Outer(inner: Inner(values: [1, 2, 3])))
            #expect {
                try codec.decode(OuterStrings.self, from: stored)
            } throws: { error in
                guard let error = error as? DecodingError, case .typeMismatch = error else { return false }
                return pathStrings(error) == ["inner", "values", "[0]"]
            }
        }

        @Test func containerKindMismatchThrowsTypeMismatch() throws {
            let stored = try codec.encode([1, 2])
            #expect {
                try codec.decode(Counter.self, from: stored)
            } throws: { error in
                guard case DecodingError.typeMismatch = error else { return false }
                return true
            }
        }

        @Test func missingRequiredFieldThrowsKeyNotFound() throws {
            struct Empty: Codable {}
            #expect {
                try codec.decode(Counter.self, from: codec.encode(Empty()))
            } throws: { error in
                guard case DecodingError.keyNotFound(let key, _) = error else { return false }
                return key.stringValue == "count"
            }
        }

        @Test func nilForANonOptionalFieldThrowsValueNotFound() throws {
            struct MaybeCounter: Codable {
                var count: Int?
                func encode(to encoder: any Encoder) throws {
                    var container = encoder.container(keyedBy: CodingKeys.self)
                    try container.encodeNil(forKey: .count)
                }
            }
            #expect {
                try codec.decode(Counter.self, from: codec.encode(MaybeCounter()))
            } throws: { error in
                guard let error = error as? DecodingError, case .valueNotFound = error else { return false }
                return pathStrings(error) == ["count"]
            }
        }

        @Test func readingPastTheEndOfAnArrayThrowsValueNotFound() throws {
            struct Pair: Decodable {
                init(from decoder: any Decoder) throws {
                    var container = try decoder.unkeyedContainer()
                    _ = try container.decode(Int.self)
                    _ = try container.decode(Int.self)
                }
            }
            #expect {
                try codec.decode(Pair.self, from: codec.encode([1]))
            } throws: { error in
                guard case DecodingError.valueNotFound = error else { return false }
                return true
            }
        }

        @Test(arguments: [UInt8(0), 2, 0xFF])
        func unknownFormatVersionThrows(_ version: UInt8) throws {
            var bytes = try Array(codec.encode(Counter(count: 1)))
            bytes[0] = version
            #expect {
                try codec.decode(Counter.self, from: Data(bytes))
            } throws: { error in
                guard case DecodingError.dataCorrupted(let context) = error else { return false }
                return context.debugDescription.contains("version \(version)")
            }
        }

        @Test func emptyInputThrows() {
            #expect(throws: DecodingError.self) { try codec.decode(Counter.self, from: Data()) }
            #expect(throws: DecodingError.self) {
                try codec.decode(Counter.self, fromBytes: UnsafeRawBufferPointer(start: nil, count: 0))
            }
        }

        @Test func trailingBytesAfterTheValueThrow() throws {
            let bytes = try Array(codec.encode(Counter(count: 1))) + [0]
            #expect(throws: DecodingError.self) { try codec.decode(Counter.self, from: Data(bytes)) }
        }

        @Test func invalidUTF8InAStringThrowsDataCorrupted() throws {
            var bytes = try Array(codec.encode("abc"))
            bytes[bytes.count - 1] = 0xFF
            #expect {
                try codec.decode(String.self, from: Data(bytes))
            } throws: { error in
                guard case DecodingError.dataCorrupted = error else { return false }
                return true
            }
        }

        @Test func usingAContainerAfterItsParentMovedOnThrowsInsteadOfWritingGarbage() throws {
            struct OutOfOrder: Encodable {
                enum Keys: String, CodingKey { case a, b }
                func encode(to encoder: any Encoder) throws {
                    var container = encoder.container(keyedBy: Keys.self)
                    var nested = container.nestedUnkeyedContainer(forKey: .a)
                    try container.encode(1, forKey: .b)
                    try nested.encode(2)
                }
            }
            #expect {
                try codec.encode(OutOfOrder())
            } throws: { error in
                guard case EncodingError.invalidValue(_, let context) = error else { return false }
                return context.codingPath.map(\.stringValue) == ["a", "Index 0"]
            }
        }

        @Test func encodingTwoValuesIntoOneSingleValueContainerThrows() {
            struct Twice: Encodable {
                func encode(to encoder: any Encoder) throws {
                    var container = encoder.singleValueContainer()
                    try container.encode(1)
                    try container.encode(2)
                }
            }
            #expect(throws: EncodingError.self) { try codec.encode(Twice()) }
        }

        @Test func anErrorCaughtInsideEncodeLeavesAWellFormedRecord() throws {
            struct Failing: Encodable {
                struct Boom: Error {}
                func encode(to encoder: any Encoder) throws {
                    var container = encoder.unkeyedContainer()
                    try container.encode("partial")
                    throw Boom()
                }
            }
            struct Tolerant: Encodable {
                enum Keys: String, CodingKey { case bad, good }
                func encode(to encoder: any Encoder) throws {
                    var container = encoder.container(keyedBy: Keys.self)
                    try? container.encode(Failing(), forKey: .bad)
                    try container.encode(5, forKey: .good)
                }
            }
            struct Good: Decodable { var good: Int; var bad: Int? }
            let decoded = try codec.decode(Good.self, from: codec.encode(Tolerant()))
            #expect(decoded.good == 5)
            #expect(decoded.bad == nil)
        }

        @Test func modelErrorsPropagateUnchanged() {
            struct Custom: Error, Equatable {}
            struct Thrower: Codable {
                init() {}
                init(from decoder: any Decoder) throws { throw Custom() }
                func encode(to encoder: any Encoder) throws { throw Custom() }
            }
            #expect(throws: Custom()) { try codec.encode(Thrower()) }
            #expect(throws: Custom()) { try codec.decode(Thrower.self, from: codec.encode(1)) }
        }
    }
}
