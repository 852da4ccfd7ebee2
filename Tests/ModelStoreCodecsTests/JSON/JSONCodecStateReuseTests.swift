import Foundation
import Testing
@testable import ModelStoreCodecs

extension JSONCodecTests {
    /// Each thread reuses the JSON encoder's and decoder's state (and the decoder's tape) from one call to the next;
    /// no call may see another's.
    @Suite("JSONModelCodec state reuse")
    struct StateReuse {
        /// Stores its `inner` value as a nested JSON document (base64 in a string), so encoding and decoding it call
        /// the codec again on the same thread while the outer call is still in progress.
        struct Envelope: Codable, Equatable {
            var label: String
            var inner: Profile
            var trailer: String

            private enum CodingKeys: String, CodingKey {
                case label, inner, trailer
            }

            init(label: String, inner: Profile, trailer: String) {
                self.label = label
                self.inner = inner
                self.trailer = trailer
            }

            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: CodingKeys.self)
                label = try container.decode(String.self, forKey: .label)
                let payload = try container.decode(Data.self, forKey: .inner)
                inner = try codec.decode(Profile.self, from: payload)
                // The outer call's tape must still be its own after the nested call returned.
                trailer = try container.decode(String.self, forKey: .trailer)
            }

            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(label, forKey: .label)
                try container.encode(codec.encode(inner), forKey: .inner)
                try container.encode(trailer, forKey: .trailer)
            }
        }

        @Test func aModelMayCallTheCodecFromInsideItsOwnEncodingAndDecoding() throws {
            let envelope = Envelope(label: "outer", inner: .sample, trailer: "after the nested call")
            let data = try codec.encode(envelope)
            // The fast encoder wrote it (Foundation's output would differ only in key order), and the fast
            // decoder reads it back.
            #expect(try JSONDecoder().decode(Envelope.self, from: data) == envelope)
            #expect(try data.withUnsafeBytes { try JSONFastDecoder.decode(Envelope.self, from: $0) } == envelope)
            let pair = [envelope, envelope]
            #expect(try codec.decode([Envelope].self, from: codec.encode(pair)) == pair)
        }

        /// Asks for a key the document lacks and catches the error: only Foundation may answer such a call.
        struct Forgiving: Decodable {
            var name: String

            private enum CodingKeys: String, CodingKey {
                case name, missing
            }

            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: CodingKeys.self)
                name = (try? container.decode(String.self, forKey: .missing)) ?? ""
                name += try container.decode(String.self, forKey: .name)
            }
        }

        @Test func aCallThatNeededFoundationDoesNotSendTheNextOneThere() throws {
            let document = Array(#"{"name":"n"}"#.utf8)
            #expect(throws: JSONFastDecoderError.self) {
                try document.withUnsafeBytes { try JSONFastDecoder.decode(Forgiving.self, from: $0) }
            }
            let plain = try document.withUnsafeBytes { try JSONFastDecoder.decode([String: String].self, from: $0) }
            #expect(plain == ["name": "n"])
        }

        @Test func aRejectedDocumentDoesNotDisturbTheNextOne() throws {
            let broken = Array(#"{"name":"n",}"#.utf8)
            #expect(throws: JSONSyntaxError.self) {
                try broken.withUnsafeBytes { try JSONFastDecoder.decode([String: String].self, from: $0) }
            }
            // Shorter than the tape the broken one left behind, with different structure at the same offsets.
            let next = Array(#"["a",1]"#.utf8)
            #expect(throws: DecodingError.self) {
                try next.withUnsafeBytes { try JSONFastDecoder.decode([String: String].self, from: $0) }
            }
            let strings = try Array(#"["a","b"]"#.utf8).withUnsafeBytes {
                try JSONFastDecoder.decode([String].self, from: $0)
            }
            #expect(strings == ["a", "b"])
        }

        @Test func aLargeDocumentAndThenASmallOneDecodeCorrectly() throws {
            let many = (0..<20_000).map { "value \($0)" }
            #expect(try codec.decode([String].self, from: codec.encode(many)) == many)
            let metadata = ["etag": "\"33a64df551425fcc55e4d42a148795d9f25f89d4\""]
            #expect(try codec.decode([String: String].self, from: codec.encode(metadata)) == metadata)
        }

        /// Keeps its decoder beyond the decode call, as a lazily decoding model might.
        final class Keeper: Decodable {
            let decoder: any Decoder

            init(from decoder: any Decoder) throws {
                self.decoder = decoder
            }
        }

        @Test func aDecoderKeptByAModelKeepsItsDocumentWhileLaterCallsReuseTheirState() throws {
            var bytes = Array(try JSONEncoder().encode(["name": "kept"]))
            let keeper = try bytes.withUnsafeBytes { try codec.decode(Keeper.self, fromBytes: $0) }
            bytes.withUnsafeMutableBytes { _ = $0.initializeMemory(as: UInt8.self, repeating: 0) }
            // Later calls on this thread must not hand the kept decoder's state (or its tape) to another document.
            for index in 0..<3 {
                let other = ["name": "other \(index)", "extra": String(repeating: "x", count: index * 40)]
                #expect(try codec.decode([String: String].self, from: codec.encode(other)) == other)
            }
            let container = try keeper.decoder.container(keyedBy: Containers.AnyKey.self)
            #expect(try container.decode(String.self, forKey: Containers.AnyKey("name")) == "kept")
        }

        /// A decode call borrows its thread's state, and the thread's slot keeps that state's only lasting
        /// reference: threads that decode (plain, nested, kept and rejected documents) and then end must each use
        /// their own state and leave nothing behind (`scripts/sanitize address` checks the second half).
        @Test func threadsThatComeAndGoEachDecodeWithTheirOwnState() throws {
            let envelope = Envelope(label: "outer", inner: .sample, trailer: "after")
            let encoded = try codec.encode(envelope)
            let failures = FailureTally()
            let finished = DispatchGroup()
            for index in 0..<16 {
                finished.enter()
                let thread = Thread {
                    defer { finished.leave() }
                    let document = ["name": "thread \(index)", "pad": String(repeating: "p", count: index * 9)]
                    let kept = (try? codec.encode(["name": "kept \(index)"])).flatMap { try? codec.decode(Keeper.self, from: $0) }
                    let rejected = (try? Array(#"{"a":1,}"#.utf8).withUnsafeBytes {
                        try JSONFastDecoder.decode([String: Int].self, from: $0)
                    }) == nil
                    guard let encodedDocument = try? codec.encode(document),
                        (try? codec.decode([String: String].self, from: encodedDocument)) == document,
                        (try? codec.decode(Envelope.self, from: encoded)) == envelope,
                        rejected,
                        let container = try? kept?.decoder.container(keyedBy: Containers.AnyKey.self),
                        (try? container.decode(String.self, forKey: Containers.AnyKey("name"))) == "kept \(index)"
                    else {
                        failures.increment()
                        return
                    }
                }
                thread.start()
            }
            #expect(finished.wait(timeout: .now() + 60) == .success)
            #expect(failures.value == 0)
        }

        /// Encodes the same key twice: the fast encoder gives up on it and Foundation writes it.
        struct DuplicateKey: Encodable {
            private enum CodingKeys: String, CodingKey {
                case name
            }

            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode("first", forKey: .name)
                try container.encode("second", forKey: .name)
            }
        }

        @Test func anEncodeThatGaveUpDoesNotMakeTheNextOneGiveUp() throws {
            var buffer: [UInt8] = []
            #expect(try JSONFastEncoder.encode(DuplicateKey(), appendingTo: &buffer) == false)
            #expect(buffer.isEmpty)
            #expect(try JSONFastEncoder.encode(["name": "n"], appendingTo: &buffer))
            #expect(buffer == Array(#"{"name":"n"}"#.utf8))
        }
    }
}
