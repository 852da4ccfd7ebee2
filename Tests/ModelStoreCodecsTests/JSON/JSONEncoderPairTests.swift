import Foundation
import Testing
@testable import ModelStoreCodecs

extension JSONCodecTests {
    /// `encode(_:then:appendingTo:)`: two values in one run, as a record's metadata and model are written.
    @Suite("JSON codec: two values in one run")
    struct EncoderPair {
        struct HTTPInfo: Codable, Equatable {
            var etag: String
            var lastModified: String?
        }

        static let info = HTTPInfo(etag: "\"33a64df551425fcc55e4d42a148795d9f25f89d4\"", lastModified: "Tue, 24 Nov 2026")

        /// Each value encoded on its own, one after the other: what the pair must equal.
        static func separately<A: Encodable, B: Encodable>(_ first: A, _ second: B) throws -> ([UInt8], Int) {
            var buffer: [UInt8] = [7]
            try JSONCodecTests.codec.encode(first, appendingTo: &buffer)
            let middle = buffer.count
            try JSONCodecTests.codec.encode(second, appendingTo: &buffer)
            return (buffer, middle)
        }

        @Test func writesTheSameBytesAsTwoCallsAndSaysWhereTheSecondStarts() throws {
            var buffer: [UInt8] = [7]
            let middle = try JSONCodecTests.codec.encode(Self.info, then: Profile.sample, appendingTo: &buffer)
            let (expected, expectedMiddle) = try Self.separately(Self.info, Profile.sample)
            #expect(buffer == expected)
            #expect(middle == expectedMiddle)
            #expect(try JSONDecoder().decode(HTTPInfo.self, from: Data(buffer[1..<middle])) == Self.info)
            #expect(try JSONDecoder().decode(Profile.self, from: Data(buffer[middle...])) == Profile.sample)
        }

        @Test func scalarsAndTheSameValueTwice() throws {
            for (first, second) in [("a\"b/\u{1}", 1), ("", -2)] {
                var buffer: [UInt8] = [7]
                let middle = try JSONCodecTests.codec.encode(first, then: second, appendingTo: &buffer)
                let (expected, expectedMiddle) = try Self.separately(first, second)
                #expect(buffer == expected)
                #expect(middle == expectedMiddle)
            }
            var buffer: [UInt8] = []
            let middle = try JSONCodecTests.codec.encode(Self.info, then: Self.info, appendingTo: &buffer)
            #expect(Array(buffer[..<middle]) == Array(buffer[middle...]))
        }

        @Test func eitherValueLeftToFoundationStillGivesFoundationsBytes() throws {
            // The fast encoder gives up on a key written twice; Foundation then writes that value.
            let duplicate = JSONCodecTests.StateReuse.DuplicateKey()
            for order in [true, false] {
                var buffer: [UInt8] = [7]
                let middle = order
                    ? try JSONCodecTests.codec.encode(duplicate, then: Self.info, appendingTo: &buffer)
                    : try JSONCodecTests.codec.encode(Self.info, then: duplicate, appendingTo: &buffer)
                let (expected, expectedMiddle) = order
                    ? try Self.separately(duplicate, Self.info) : try Self.separately(Self.info, duplicate)
                #expect(buffer == expected)
                #expect(middle == expectedMiddle)
            }
        }

        @Test func aValueThatThrowsLeavesTheBufferAsItWas() throws {
            for order in [true, false] {
                var buffer: [UInt8] = [9, 8]
                #expect(throws: EncodingError.self) {
                    _ = order
                        ? try JSONCodecTests.codec.encode([Double.nan], then: Self.info, appendingTo: &buffer)
                        : try JSONCodecTests.codec.encode(Self.info, then: [Double.nan], appendingTo: &buffer)
                }
                #expect(buffer == [9, 8])
                #expect(throws: EncoderEngine.Failing.Boom.self) {
                    _ = order
                        ? try JSONCodecTests.codec.encode(EncoderEngine.Failing(), then: 1, appendingTo: &buffer)
                        : try JSONCodecTests.codec.encode(1, then: EncoderEngine.Failing(), appendingTo: &buffer)
                }
                #expect(buffer == [9, 8])
            }
        }

        /// A codec of the caller's own, with only the required methods: the protocol's two calls.
        struct WrappingCodec: ModelCodec {
            var identifier: ModelCodecIdentifier { .custom(200) }
            func encode<Value: Encodable>(_ value: Value) throws -> Data { try JSONEncoder().encode([value]) }
            func decode<Value: Decodable>(_ type: Value.Type, from data: Data) throws -> Value {
                try JSONDecoder().decode([Value].self, from: data)[0]
            }
        }

        @Test func theDefaultImplementationEncodesOneAfterTheOther() throws {
            var buffer: [UInt8] = [7]
            let middle = try WrappingCodec().encode("a", then: 2, appendingTo: &buffer)
            #expect(String(decoding: buffer[1...], as: UTF8.self) == #"["a"][2]"#)
            #expect(middle == 6)
            #expect(throws: EncodingError.self) {
                _ = try WrappingCodec().encode("a", then: Double.nan, appendingTo: &buffer)
            }
            #expect(buffer.count == 9)
        }
    }
}
