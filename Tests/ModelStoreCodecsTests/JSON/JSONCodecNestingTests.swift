import Foundation
import Testing
@testable import ModelStoreCodecs
import ModelStoreTestSupport

extension JSONCodecTests {
    /// Documents and models nested past the 512-level limit get a typed error from every JSON path; none of them may
    /// reach Foundation's recursive parser or encoder, which crash the process on such input.
    @Suite("JSON codec: nesting limits")
    struct Nesting {
        /// Documents cut at Foundation's depth limit; each once crashed the process inside `JSONDecoder`.
        static let documentsPastTheLimit = [
            String(repeating: "[", count: 513),
            String(repeating: #"{"a":"#, count: 512) + "[",
            #"{"a":"# + String(repeating: "[", count: 512),
            String(repeating: "[", count: 513) + String(repeating: "]", count: 513),
        ]

        /// Every way the codec decodes: its own decoder, Foundation's, and Foundation's with custom settings.
        static var codecs: [JSONModelCodec] {
            let iso = JSONDecoder()
            iso.dateDecodingStrategy = .iso8601
            let json5 = JSONDecoder()
            json5.allowsJSON5 = true
            return [
                JSONModelCodec(), JSONModelCodec(decoding: .foundation), JSONModelCodec(decoder: iso),
                JSONModelCodec(decoder: json5),
            ]
        }

        static func isDataCorrupted(_ error: any Error) -> Bool {
            guard case DecodingError.dataCorrupted = error else { return false }
            return true
        }

        @Test(arguments: documentsPastTheLimit)
        func documentsNestedPastTheLimitThrowDataCorruptedFromEveryEngine(_ document: String) {
            for codec in Self.codecs {
                #expect(performing: { try codec.decode(JSONValue.self, from: Data(document.utf8)) },
                        throws: Self.isDataCorrupted)
                let bytes = Array(document.utf8)
                #expect(performing: { try bytes.withUnsafeBytes { try codec.decode(JSONValue.self, fromBytes: $0) } },
                        throws: Self.isDataCorrupted)
            }
        }

        /// JSON5 comments and single-quoted strings cannot hide brackets from the check.
        @Test func json5CommentsAndStringsCannotHideNestingFromTheCheck() {
            let json5 = JSONDecoder()
            json5.allowsJSON5 = true
            let codec = JSONModelCodec(decoder: json5)
            let closers = String(repeating: "]", count: 600)
            for prefix in ["/* \(closers) */", "'\(closers)'", "[\"\(closers)\", "] {
                let document = prefix + String(repeating: "[", count: 513)
                #expect(performing: { try codec.decode(JSONValue.self, from: Data(document.utf8)) },
                        throws: Self.isDataCorrupted)
            }
        }

        /// Foundation converts UTF-16 and UTF-32 documents to UTF-8 before parsing. In their own bytes a character
        /// like U+2200 (`00 22` in UTF-16LE) looks like a quote, so a byte count sees the brackets after it as text.
        @Test func wideEncodingsCannotHideNestingFromTheCheck() {
            let document = "[\"\u{2200}\"," + String(repeating: "[", count: 512)
            let encodings: [String.Encoding] = [.utf16LittleEndian, .utf16BigEndian, .utf32LittleEndian, .utf32BigEndian]
            for encoding in encodings {
                let data = document.data(using: encoding)!
                #expect(performing: { try data.withUnsafeBytes { try JSONNestingGuard.check($0, allowsJSON5: false) } },
                        throws: Self.isDataCorrupted)
            }
        }

        /// The wide-encoding check rejects only what is too deep: Foundation still reads UTF-16 and UTF-32 records.
        @Test(.long) func wideDocumentsWithinTheLimitStillDecodeThroughFoundation() throws {
            let codec = JSONModelCodec(decoding: .foundation)
            let document = "[\"\u{2200}\"," + String(repeating: "[", count: 500) + String(repeating: "]", count: 501)
            for encoding in [String.Encoding.utf16LittleEndian, .utf32BigEndian] {
                #expect(throws: Never.self) { try codec.decode(JSONValue.self, from: document.data(using: encoding)!) }
            }
            let tooDeep = "[\"\u{2200}\"," + String(repeating: "[", count: 512)
            #expect(performing: { try codec.decode(JSONValue.self, from: tooDeep.data(using: .utf16LittleEndian)!) },
                    throws: Self.isDataCorrupted)
        }

        @Test(.long) func documentsAtTheLimitDecodeAsFoundationDoes() {
            let document = String(repeating: "[", count: 512) + "1" + String(repeating: "]", count: 512)
            expectSameAsFoundation(JSONValue.self, json: document)
            #expect((try? JSONModelCodec().decode(JSONValue.self, from: Data(document.utf8))) != nil)
        }

        // MARK: - Encoding

        /// Arrays nested `depth` deep, each a value of its own, as a recursive model writes them.
        struct NestedArrays: Encodable {
            let depth: Int
            func encode(to encoder: any Encoder) throws {
                var container = encoder.unkeyedContainer()
                if depth > 1 { try container.encode(NestedArrays(depth: depth - 1)) }
            }
        }

        /// A chain of single-value wrappers `depth` long around an Int: no containers at all.
        struct Wrapper: Encodable {
            let depth: Int
            func encode(to encoder: any Encoder) throws {
                var container = encoder.singleValueContainer()
                if depth > 1 { try container.encode(Wrapper(depth: depth - 1)) } else { try container.encode(7) }
            }
        }

        indirect enum Chain: Codable {
            case end
            case link(Chain)

            static func deep(_ depth: Int) -> Chain {
                var chain = Chain.end
                for _ in 0..<depth { chain = .link(chain) }
                return chain
            }
        }

        /// A model the fast encoder leaves to Foundation (a key written twice), with a deep model after it.
        struct LeftToFoundation: Encodable {
            enum CodingKeys: String, CodingKey { case a, deep }
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(1, forKey: .a)
                try container.encode(2, forKey: .a)
                try container.encode(NestedArrays(depth: 10_000), forKey: .deep)
            }
        }

        static func isInvalidValue(_ error: any Error) -> Bool {
            guard case EncodingError.invalidValue = error else { return false }
            return true
        }

        /// Every encoder ModelStore offers, ModelStore's own and Foundation's behind the codecs.
        static let encoders: [any ModelCodec] = {
            let sorted = JSONEncoder()
            sorted.outputFormatting = .sortedKeys
            return [
                JSONModelCodec(), JSONModelCodec(encoding: .foundation), JSONModelCodec(encoder: sorted),
                PropertyListModelCodec(), BinaryModelCodec(),
            ]
        }()

        static func expectInvalidValue<Value: Encodable>(_ value: Value, sourceLocation: SourceLocation = #_sourceLocation) {
            for codec in encoders {
                #expect(sourceLocation: sourceLocation, performing: { try codec.encode(value) }, throws: isInvalidValue)
                var buffer: [UInt8] = [1]
                #expect(
                    sourceLocation: sourceLocation, performing: { try codec.encode(value, appendingTo: &buffer) },
                    throws: isInvalidValue)
                #expect(buffer == [1], sourceLocation: sourceLocation)
            }
        }

        @Test func tenThousandNestedArraysThrowInvalidValueInsteadOfOverflowingTheStack() {
            Self.expectInvalidValue(NestedArrays(depth: 10_000))
        }

        @Test func aRecursiveEnumSixThousandDeepThrowsInvalidValue() {
            Self.expectInvalidValue(Chain.deep(6_000))
        }

        @Test func singleValueWrapperChainsCountTowardsTheLimit() {
            Self.expectInvalidValue(Wrapper(depth: 10_000))
            Self.expectInvalidValue(Wrapper(depth: 513))
        }

        /// Models the fast encoder hands to Foundation are checked before Foundation recurses into them.
        @Test func aDeepModelLeftToFoundationThrowsInvalidValue() {
            Self.expectInvalidValue(LeftToFoundation())
        }

        /// Up to the limit, the codec writes exactly what `JSONEncoder` writes, and throws its error where it throws
        /// (`JSONEncoder` refuses a 512th nested array).
        @Test func modelsAtTheLimitEncodeAsJSONEncoderDoes() throws {
            for value in [NestedArrays(depth: 511), NestedArrays(depth: 300)] {
                #expect(Array(try codec.encode(value)) == Array(try JSONEncoder().encode(value)))
            }
            #expect(Array(try codec.encode(Wrapper(depth: 512))) == Array(try JSONEncoder().encode(Wrapper(depth: 512))))
            #expect(Array(try codec.encode(Chain.deep(254))) == Array(try JSONEncoder().encode(Chain.deep(254))))
            let codecError = #expect(throws: EncodingError.self) { try codec.encode(NestedArrays(depth: 512)) }
            let foundationError = #expect(throws: EncodingError.self) { try JSONEncoder().encode(NestedArrays(depth: 512)) }
            #expect(codecError.map { "\($0)" } == foundationError.map { "\($0)" })
        }
    }
}
