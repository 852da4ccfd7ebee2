import Foundation
import Testing
@testable import ModelStore

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

        @Test func documentsAtTheLimitDecodeAsFoundationDoes() {
            let document = String(repeating: "[", count: 512) + "1" + String(repeating: "]", count: 512)
            expectSameAsFoundation(JSONValue.self, json: document)
            #expect((try? JSONModelCodec().decode(JSONValue.self, from: Data(document.utf8))) != nil)
        }
    }
}
