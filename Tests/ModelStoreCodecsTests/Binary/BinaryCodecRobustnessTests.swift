import Foundation
import ModelStoreCodecs
import Testing
import ModelStoreTestSupport

extension BinaryCodecTests {
    /// Records come from disk and may be damaged; decoding them must throw, never crash, hang or over-allocate.
    @Suite("BinaryModelCodec robustness")
    struct Robustness {
        /// A model touching every container kind and the fast paths, for fuzzing.
        struct Everything: Codable {
            var profile: Profile
            var scalars: Scalars
            var shapes: [Shape]
            var node: Node
            var map: [String: [Int?]]
            var big: [Int: Double]
        }

        // Computed, not a stored static: a global holding indirect enum cases keeps their boxes behind tagged
        // pointers that LeakSanitizer cannot follow, so `scripts/sanitize address` reported them as leaks.
        static var everything: Everything {
            Everything(
                profile: .sample,
                scalars: Scalars(),
                shapes: [.circle(radius: 1), .label("x", bold: false), .empty],
                node: .branch([.leaf(1), .branch([.leaf(2)])]),
                map: ["a": [1, nil], "b": []],
                big: Dictionary(uniqueKeysWithValues: (0..<20).map { ($0, Double($0) / 3) })
            )
        }

        /// Decodes `bytes` as several models and checks that every failure is a `DecodingError`.
        private func decodeExpectingOnlyDecodingErrors(_ bytes: [UInt8]) {
            bytes.withUnsafeBytes { raw in
                func attempt<T: Decodable>(_ type: T.Type) {
                    do {
                        _ = try codec.decode(type, fromBytes: raw)
                    } catch is DecodingError {
                        // Expected for damaged input.
                    } catch {
                        Issue.record("decoding \(type) threw \(error), not a DecodingError")
                    }
                }
                attempt(Profile.self)
                attempt(Everything.self)
                attempt(Node.self)
                attempt(Nested.self)
                attempt([String: Shape].self)
            }
        }

        @Test func truncationAtEveryOffsetThrows() throws {
            for record in [try codec.encode(Profile.sample), try codec.encode(Self.everything)] {
                let bytes = Array(record)
                for length in 0..<bytes.count {
                    let prefix = Array(bytes[..<length])
                    _ = prefix.withUnsafeBytes { raw in
                        #expect(throws: DecodingError.self, "truncated to \(length) of \(bytes.count) bytes") {
                            try codec.decode(Profile.self, fromBytes: raw)
                        }
                    }
                    decodeExpectingOnlyDecodingErrors(prefix)
                }
            }
        }

        @Test(.long) func seededFuzzingNeverCrashes() throws {
            var random = SeededGenerator(seed: 0x5EED_0F_B1_7C0DEC)
            let records = [Array(try codec.encode(Profile.sample)), Array(try codec.encode(Self.everything))]
            var inputs = 0
            // Bit flips and byte overwrites of real records: the damage storage actually does.
            for _ in 0..<12_000 {
                var bytes = records[Int.random(in: 0..<records.count, using: &random)]
                for _ in 0..<Int.random(in: 1...4, using: &random) {
                    let index = Int.random(in: 0..<bytes.count, using: &random)
                    if Bool.random(using: &random) {
                        bytes[index] ^= 1 << UInt8.random(in: 0..<8, using: &random)
                    } else {
                        bytes[index] = UInt8.random(in: 0...255, using: &random)
                    }
                }
                if Int.random(in: 0..<4, using: &random) == 0 {
                    bytes.removeLast(Int.random(in: 0..<bytes.count, using: &random))
                }
                decodeExpectingOnlyDecodingErrors(bytes)
                inputs += 1
            }
            // Random bytes behind a valid version byte and a plausible first tag, so they get past the first check.
            for _ in 0..<10_000 {
                let length = Int.random(in: 0..<96, using: &random)
                var bytes = [BinaryFormatProbe.version, UInt8.random(in: 0...0x0B, using: &random)]
                bytes += (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
                decodeExpectingOnlyDecodingErrors(bytes)
                inputs += 1
            }
            #expect(inputs >= 20_000)
        }

        @Test func storedStringsAreAcceptedExactlyWhenTheyAreValidUTF8() throws {
            // Oracle: bytes are valid UTF-8 exactly when the standard library decodes them without repairing.
            var random = SeededGenerator(seed: 0x0075_7466_38)
            let samples: [[UInt8]] = [
                [0xC0, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xE2, 0x82], [0x80], [0xF8],
                [0xE2, 0x82, 0xAC], [0xF0, 0x9F, 0x98, 0x80], [0xEF, 0xBF, 0xBD], [0xF4, 0x8F, 0xBF, 0xBF],
            ]
            let generated = (0..<5_000).map { _ in
                (0..<Int.random(in: 0...12, using: &random)).map { _ in
                    // Mostly lead and continuation bytes, where the interesting cases are.
                    Bool.random(using: &random)
                        ? UInt8.random(in: 0x80...0xF5, using: &random) : UInt8.random(in: 0...0xFF, using: &random)
                }
            }
            for utf8 in samples + generated {
                let valid = Array(String(decoding: utf8, as: UTF8.self).utf8) == utf8
                var payload: [UInt8] = [BinaryFormatProbe.version, 0x07, UInt8(utf8.count)]
                payload += utf8
                let decoded = try? codec.decode(String.self, from: Data(payload))
                #expect((decoded != nil) == valid, "bytes \(utf8)")
                if let decoded {
                    #expect(Array(decoded.utf8) == utf8)
                }
            }
        }

        @Test func hugeLengthsAreRejectedBeforeAllocating() {
            // A string claiming 2^62 bytes, a container claiming 4 GiB, and a container claiming 2^32-1 elements.
            let hostile: [[UInt8]] = [
                [1, 0x07, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x40],
                [1, 0x0A, 0xFF, 0xFF, 0xFF, 0xFF, 0x01, 0x00, 0x00, 0x00],
                [1, 0x0A, 0x00, 0x00, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0xFF],
                [1, 0x08, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01],
                [1, 0x03, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x02],
            ]
            for bytes in hostile {
                #expect(throws: DecodingError.self) { try codec.decode([String].self, from: Data(bytes)) }
                #expect(throws: DecodingError.self) { try codec.decode(String.self, from: Data(bytes)) }
                #expect(throws: DecodingError.self) { try codec.decode(Data.self, from: Data(bytes)) }
                #expect(throws: DecodingError.self) { try codec.decode(UInt64.self, from: Data(bytes)) }
            }
        }

        @Test func nestingBeyondTheLimitThrowsInsteadOfOverflowingTheStack() throws {
            // Hand-built: 600 unkeyed containers, one inside the other, around a single integer.
            let depth = 600
            var value: [UInt8] = [0x04, 0x00]
            for _ in 0..<depth {
                let length = UInt32(value.count)
                var header: [UInt8] = [0x0A]
                withUnsafeBytes(of: length.littleEndian) { header += $0 }
                withUnsafeBytes(of: UInt32(1).littleEndian) { header += $0 }
                value = header + value
            }
            let bytes = [BinaryFormatProbe.version] + value
            #expect {
                try codec.decode(Nested.self, from: Data(bytes))
            } throws: { error in
                guard case DecodingError.dataCorrupted(let context) = error else { return false }
                return context.debugDescription.contains("deeper than 512")
            }
            // The encoder enforces the same limit, so it never writes what the decoder refuses.
            #expect(throws: EncodingError.self) { try codec.encode(Node.chain(depth: 600)) }
        }

        @Test func aDecoderSmuggledOutOfDecodeCannotReadFreedMemory() throws {
            final class Smuggler: Decodable {
                let decoder: any Decoder
                init(from decoder: any Decoder) throws {
                    self.decoder = decoder
                }
            }
            let smuggler = try codec.encode(Profile.sample).withUnsafeBytes { raw in
                try codec.decode(Smuggler.self, fromBytes: raw)
            }
            enum Keys: String, CodingKey { case id }
            #expect(throws: DecodingError.self) {
                try smuggler.decoder.container(keyedBy: Keys.self).decode(Int.self, forKey: .id)
            }
        }
    }

    /// A recursive model stored as nested arrays around an integer, so hostile data decides how deep it goes.
    indirect enum Nested: Decodable {
        case leaf(Int)
        case list([Nested])

        init(from decoder: any Decoder) throws {
            if let value = try? decoder.singleValueContainer().decode(Int.self) {
                self = .leaf(value)
            } else {
                self = .list(try [Nested](from: decoder))
            }
        }
    }

    /// The format constants the tests need, restated so a format change shows up as a test change.
    enum BinaryFormatProbe {
        static let version: UInt8 = 1
    }
}
