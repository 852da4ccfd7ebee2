import Foundation
import Testing
@testable import ModelStoreCodecs

extension JSONCodecTests {
    /// Which decoder the codec uses: ModelStore's only for a `JSONDecoder` on default settings, unless told otherwise.
    @Suite("JSONModelCodec: choosing the decoding engine")
    struct Engines {
        /// Reports which `Decoder` implementation decoded it.
        struct DecoderName: Decodable {
            var name: String

            init(from decoder: any Decoder) throws {
                name = String(describing: type(of: decoder))
            }
        }

        private func decoderName(_ codec: JSONModelCodec, json: String = "{}") throws -> String {
            try codec.decode(DecoderName.self, from: Data(json.utf8)).name
        }

        private let fastName = String(describing: JSONValueDecoder.self)

        @Test func automaticUsesModelStoresDecoderForDefaultSettings() throws {
            #expect(try decoderName(JSONModelCodec()) == fastName)
            #expect(try decoderName(JSONModelCodec(decoder: JSONDecoder(), decoding: .automatic)) == fastName)
        }

        @Test func foundationEngineAlwaysUsesJSONDecoder() throws {
            #expect(try decoderName(JSONModelCodec(decoding: .foundation)) != fastName)
            let codec = JSONModelCodec(decoding: .foundation)
            #expect(try codec.decode(Profile.self, from: try codec.encode(Profile.sample)) == Profile.sample)
        }

        @Test func customisedDecodersGoThroughFoundation() throws {
            let dates = JSONDecoder()
            dates.dateDecodingStrategy = .iso8601
            let encoder = JSONEncoder()
            encoder.dateEncodingStrategy = .iso8601
            let codec = JSONModelCodec(encoder: encoder, decoder: dates)
            #expect(try decoderName(codec) != fastName)
            let date = Date(timeIntervalSince1970: 1_700_000_000)
            #expect(try codec.decode([Date].self, from: try codec.encode([date])) == [date])

            let customised: [JSONDecoder] = [
                {
                    let decoder = JSONDecoder()
                    decoder.keyDecodingStrategy = .convertFromSnakeCase
                    return decoder
                }(),
                {
                    let decoder = JSONDecoder()
                    decoder.dataDecodingStrategy = .deferredToData
                    return decoder
                }(),
                {
                    let decoder = JSONDecoder()
                    decoder.dateDecodingStrategy = .secondsSince1970
                    return decoder
                }(),
                {
                    let decoder = JSONDecoder()
                    decoder.nonConformingFloatDecodingStrategy = .convertFromString(
                        positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
                    return decoder
                }(),
                {
                    let decoder = JSONDecoder()
                    decoder.userInfo[CodingUserInfoKey(rawValue: "k")!] = 1
                    return decoder
                }(),
                {
                    let decoder = JSONDecoder()
                    decoder.allowsJSON5 = true
                    return decoder
                }(),
                {
                    let decoder = JSONDecoder()
                    decoder.assumesTopLevelDictionary = true
                    return decoder
                }(),
                SubclassedDecoder(),
            ]
            for decoder in customised {
                #expect(try decoderName(JSONModelCodec(decoder: decoder)) != fastName)
            }
        }

        final class SubclassedDecoder: JSONDecoder, @unchecked Sendable {}

        @Test func snakeCaseKeysStillWork() throws {
            struct Snake: Codable, Equatable { var firstName: String }
            let encoder = JSONEncoder()
            encoder.keyEncodingStrategy = .convertToSnakeCase
            let decoder = JSONDecoder()
            decoder.keyDecodingStrategy = .convertFromSnakeCase
            let codec = JSONModelCodec(encoder: encoder, decoder: decoder)
            #expect(
                try codec.decode(Snake.self, from: try codec.encode(Snake(firstName: "Ada"))) == Snake(firstName: "Ada")
            )
        }

        /// Trailing commas and a byte-order mark are not RFC 8259. Foundation accepts them, but bytes ModelStore's
        /// scanner rejected are never handed to Foundation (its parser crashes on some of them): they are corrupt.
        @Test func documentsTheScannerRejectsThrowDataCorruptedWithoutFoundation() throws {
            func isDataCorrupted(_ error: any Error) -> Bool {
                guard case DecodingError.dataCorrupted = error else { return false }
                return true
            }
            #expect(performing: { try JSONModelCodec().decode([Int].self, from: Data("[1,2,]".utf8)) },
                    throws: isDataCorrupted)
            #expect(performing: { try JSONModelCodec().decode([Int].self, from: Data("\u{FEFF}[3]".utf8)) },
                    throws: isDataCorrupted)
            let bytes = Array("[4,]".utf8)
            #expect(performing: { try bytes.withUnsafeBytes { try JSONModelCodec().decode([Int].self, fromBytes: $0) } },
                    throws: isDataCorrupted)
        }

        /// The documented way to read such records: Foundation's decoder, which reads them as it always did.
        @Test func foundationEngineStillReadsWhatFoundationAccepts() throws {
            let codec = JSONModelCodec(decoding: .foundation)
            #expect(try codec.decode([Int].self, from: Data("[1,2,]".utf8)) == [1, 2])
            #expect(try codec.decode([Int].self, from: Data("\u{FEFF}[3]".utf8)) == [3])
        }

        @Test func errorsAreFoundations() throws {
            let json = Data(#"{"id": "seven"}"#.utf8)
            var fast: (any Error)?
            var foundation: (any Error)?
            do { _ = try JSONModelCodec().decode(Profile.self, from: json) } catch { fast = error }
            do { _ = try JSONDecoder().decode(Profile.self, from: json) } catch { foundation = error }
            #expect(fast.map { String(describing: $0) } == foundation.map { String(describing: $0) })
        }
    }
}
