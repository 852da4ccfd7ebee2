import Foundation
import Testing
@testable import ModelStoreCodecs

extension JSONCodecTests {
    /// Which encoder the codec picks, and what it does to the caller's buffer.
    @Suite("JSON codec: encoding engine")
    struct EncoderEngine {
        /// Records which `Encoder` type encoded it.
        final class Probe: Encodable, @unchecked Sendable {  // Only used from one test at a time.
            var encoderTypes: [String] = []
            let date = Date(timeIntervalSinceReferenceDate: 0)

            enum Key: String, CodingKey { case b, a, date }

            func encode(to encoder: any Encoder) throws {
                encoderTypes.append(String(describing: type(of: encoder)))
                var container = encoder.container(keyedBy: Key.self)
                try container.encode(2, forKey: .b)
                try container.encode(1, forKey: .a)
                try container.encode(date, forKey: .date)
            }
        }

        private static func encoderTypes(with codec: JSONModelCodec) throws -> [String] {
            let probe = Probe()
            var buffer: [UInt8] = []
            try codec.encode(probe, appendingTo: &buffer)
            _ = try codec.encode(probe)
            return probe.encoderTypes
        }

        @Test func automaticUsesTheFastEncoderForADefaultJSONEncoder() throws {
            let types = try Self.encoderTypes(with: JSONModelCodec())
            #expect(types == ["JSONEncodingEncoder", "JSONEncodingEncoder"])
        }

        @Test func foundationEngineAlwaysUsesJSONEncoder() throws {
            let types = try Self.encoderTypes(with: JSONModelCodec(encoding: .foundation))
            #expect(!types.contains("JSONEncodingEncoder"))
        }

        final class CustomEncoder: JSONEncoder, @unchecked Sendable {}  // Adds no state.

        @Test func customisedEncodersGoThroughFoundation() throws {
            let sorted = JSONEncoder()
            sorted.outputFormatting = .sortedKeys
            let iso = JSONEncoder()
            iso.dateEncodingStrategy = .iso8601
            let snake = JSONEncoder()
            snake.keyEncodingStrategy = .convertToSnakeCase
            let info = JSONEncoder()
            info.userInfo[CodingUserInfoKey(rawValue: "k")!] = 1
            for encoder in [sorted, iso, snake, info, CustomEncoder()] {
                let types = try Self.encoderTypes(with: JSONModelCodec(encoder: encoder))
                #expect(!types.contains("JSONEncodingEncoder"))
            }
            var buffer: [UInt8] = []
            try JSONModelCodec(encoder: sorted).encode(Probe(), appendingTo: &buffer)
            #expect(String(decoding: buffer, as: UTF8.self) == #"{"a":1,"b":2,"date":0}"#)
            let isoBytes = try JSONModelCodec(encoder: iso).encode(Probe())
            #expect(String(decoding: isoBytes, as: UTF8.self).contains(#""2001-01-01T00:00:00Z""#))
        }

        @Test func appendingKeepsTheBuffersPrefix() throws {
            var buffer: [UInt8] = [1, 2, 3]
            try JSONCodecTests.codec.encode(Profile.sample, appendingTo: &buffer)
            #expect(Array(buffer.prefix(3)) == [1, 2, 3])
            let decoded = try JSONDecoder().decode(Profile.self, from: Data(buffer.dropFirst(3)))
            #expect(decoded == Profile.sample)
            #expect(try JSONCodecTests.codec.encode(Profile.sample) == Data(buffer.dropFirst(3)))
        }

        struct Failing: Encodable {
            struct Boom: Error {}
            func encode(to encoder: any Encoder) throws {
                var container = encoder.unkeyedContainer()
                try container.encode("written before the error")
                throw Boom()
            }
        }

        @Test func aFailedEncodeLeavesTheBufferUnchanged() throws {
            var buffer: [UInt8] = [9, 8]
            #expect(throws: Failing.Boom.self) { try JSONCodecTests.codec.encode(Failing(), appendingTo: &buffer) }
            #expect(buffer == [9, 8])
            #expect(throws: EncodingError.self) { try JSONCodecTests.codec.encode([Double.nan], appendingTo: &buffer) }
            #expect(buffer == [9, 8])
            #expect(try !JSONFastEncoder.encode(Failing(), appendingTo: &buffer))
            #expect(buffer == [9, 8])
        }

        @Test func aStoreWritesAndReadsThroughTheFastEncoder() throws {
            let bytes = try JSONCodecTests.codec.encode(Profile.sample)
            #expect(try JSONCodecTests.codec.decode(Profile.self, from: bytes) == Profile.sample)
            #expect(try JSONDecoder().decode(Profile.self, from: bytes) == Profile.sample)
        }
    }
}
