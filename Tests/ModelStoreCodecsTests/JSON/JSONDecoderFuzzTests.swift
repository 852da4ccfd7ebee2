import Foundation
import Testing
@testable import ModelStoreCodecs
import ModelStoreTestSupport

extension JSONCodecTests {
    /// Seeded random documents and random damage: the decoder never crashes, and never disagrees with JSONDecoder.
    @Suite("JSON decoder: randomised against JSONDecoder")
    struct Fuzz {
        @Test func randomDocumentsAsAGenericJSONValue() {
            var random = SeededGenerator(seed: 0xF00D)
            for _ in 0..<400 {
                let document = RawJSON.random(depth: 4, using: &random).text(using: &random)
                expectSameAsFoundation(JSONValue.self, json: document)
                expectSameAsFoundation([String: JSONValue].self, json: document)
            }
        }

        @Test(.long) func randomModelsRespelledAreDecodedByTheFastDecoder() throws {
            var random = SeededGenerator(seed: 0x7EE)
            for _ in 0..<150 {
                let tree = Tree.random(depth: 3, using: &random)
                let encoded = String(decoding: try JSONEncoder().encode(tree), as: UTF8.self)
                expectSameAsFoundation(Tree.self, json: encoded, fast: .decodes)
                let respelled = RawJSON.parse(encoded).text(using: &random, respellIntegers: true)
                expectSameAsFoundation(Tree.self, json: respelled, fast: .decodes)
            }
        }

        /// Bytes that matter to a JSON parser, and some that are not UTF-8.
        private static let interestingBytes =
            Array("{}[],:\"\\0123456789-+.eEtfnu /".utf8) + [0x00, 0x1F, 0x7F, 0x80, 0xBF, 0xC3, 0xE2, 0xF0, 0xFF]

        /// Decodes `bytes` with the fast decoder alone: it may throw, but a value it returns must be Foundation's.
        /// - Returns: Whether the fast decoder decoded the bytes.
        @discardableResult
        private func expectNoDisagreement<T: Decodable & Equatable>(_ type: T.Type, _ bytes: [UInt8]) -> Bool {
            guard case .success(let value) = fast(type, bytes) else { return false }
            switch foundation(type, bytes) {
            case .success(let expected):
                #expect(same(value, expected), "fast decoder gave \(value), Foundation \(expected)")
            case .failure where hasZeroWithExponent(bytes):
                break  // documented: ModelStore reads 0e5 as zero, Foundation throws
            case .failure(let error):
                Issue.record(
                    "fast decoder decoded \(String(decoding: bytes, as: UTF8.self)), Foundation threw \(error)")
            }
            return true
        }

        @Test func everyTruncationOfARecord() throws {
            let records = [
                Array(try JSONEncoder().encode(Profile.sample)), Array(try JSONEncoder().encode(Collections.sample)),
            ]
            for record in records {
                for length in 0..<record.count {
                    expectNoDisagreement(Profile.self, Array(record.prefix(length)))
                    expectNoDisagreement(Collections.self, Array(record.prefix(length)))
                }
            }
        }

        @Test(.long) func randomMutationsOfRecords() throws {
            var random = SeededGenerator(seed: 0xBAD5EED)
            var records = [Array(try JSONEncoder().encode(Profile.sample))]
            for _ in 0..<4 {
                records.append(Array(try JSONEncoder().encode(Tree.random(depth: 2, using: &random))))
            }
            var decoded = 0
            for _ in 0..<3000 {
                var bytes = records.randomElement(using: &random)!
                for _ in 0..<Int.random(in: 1...3, using: &random) where !bytes.isEmpty {
                    let offset = Int.random(in: 0..<bytes.count, using: &random)
                    switch Int.random(in: 0..<6, using: &random) {
                    case 0: bytes[offset] ^= 1 << UInt8.random(in: 0..<8, using: &random)
                    case 1: bytes[offset] = Self.interestingBytes.randomElement(using: &random)!
                    case 2: bytes.insert(Self.interestingBytes.randomElement(using: &random)!, at: offset)
                    case 3: bytes.remove(at: offset)
                    case 4:
                        let end = min(bytes.count, offset + Int.random(in: 1...20, using: &random))
                        bytes.insert(
                            contentsOf: bytes[offset..<end], at: Int.random(in: 0...bytes.count, using: &random))
                    default:
                        bytes.removeSubrange(offset..<min(bytes.count, offset + Int.random(in: 1...8, using: &random)))
                    }
                }
                for success in [
                    expectNoDisagreement(Profile.self, bytes),
                    expectNoDisagreement(Tree.self, bytes),
                    expectNoDisagreement([String: [String]].self, bytes),
                ] where success {
                    decoded += 1
                }
            }
            // Plenty of damage (inside strings, digits for digits) leaves a valid record, which must decode alike.
            #expect(decoded > 300)
        }
    }
}
