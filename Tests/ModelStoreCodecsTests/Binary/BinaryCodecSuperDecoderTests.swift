import Foundation
import ModelStoreCodecs
import Testing

extension BinaryCodecTests {
    /// `superDecoder` and `decodeIfPresent` in unkeyed containers behave as Foundation's `JSONDecoder` does, so a model
    /// reads the same records whichever codec wrote them.
    @Suite("BinaryModelCodec super decoders and optional elements")
    struct SuperDecoders {
        /// A record written before the model had a superclass: only its own field.
        struct Before: Codable { var name: String }

        /// What a superclass whose `init(from:)` tolerates nil sees through `superDecoder()`.
        struct SuperView: Decodable, Equatable {
            var superIsNil: Bool
            var superName: String?
            var keyedError: String?

            enum CodingKeys: String, CodingKey { case name, base }

            init(superIsNil: Bool, superName: String?, keyedError: String?) {
                self.superIsNil = superIsNil
                self.superName = superName
                self.keyedError = keyedError
            }

            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: CodingKeys.self)
                let superDecoder = try container.superDecoder()
                superIsNil = try superDecoder.singleValueContainer().decodeNil()
                superName = try superDecoder.singleValueContainer().decode(String?.self)
                do {
                    _ = try container.superDecoder(forKey: .base).container(keyedBy: CodingKeys.self)
                } catch let DecodingError.valueNotFound(_, context) {
                    keyedError = "valueNotFound " + context.codingPath.map(\.stringValue).joined(separator: ".")
                }
            }
        }

        @Test func superDecoderOfAnAbsentEntryReadsAsNilAsInJSON() throws {
            let expected = try JSONDecoder().decode(SuperView.self, from: JSONEncoder().encode(Before(name: "a")))
            #expect(expected == SuperView(superIsNil: true, superName: nil, keyedError: "valueNotFound base"))
            #expect(try codec.decode(SuperView.self, from: codec.encode(Before(name: "a"))) == expected)
        }

        /// A nested container for an absent key still throws `keyNotFound`, as in JSON: only super decoders read nil.
        @Test func nestedContainerOfAnAbsentKeyStillThrowsKeyNotFound() throws {
            struct Nested: Decodable {
                enum CodingKeys: String, CodingKey { case missing }
                init(from decoder: any Decoder) throws {
                    _ = try decoder.container(keyedBy: CodingKeys.self).nestedUnkeyedContainer(forKey: .missing)
                }
            }
            let data = try codec.encode(Before(name: "a"))
            #expect {
                try codec.decode(Nested.self, from: data)
            } throws: { error in
                guard case DecodingError.keyNotFound = error else { return false }
                return true
            }
        }

        /// Reads three optional elements from a two-element array and reports the index after each read.
        struct Indices: Decodable, Equatable {
            var values: [Int?] = []
            var indices: [Int] = []
            init(values: [Int?], indices: [Int]) {
                self.values = values
                self.indices = indices
            }
            init(from decoder: any Decoder) throws {
                var container = try decoder.unkeyedContainer()
                for round in 0..<4 {
                    // Both the scalar overload and the generic one.
                    if round.isMultiple(of: 2) {
                        values.append(try container.decodeIfPresent(Int.self))
                    } else {
                        values.append(try container.decodeIfPresent(Wrapped.self)?.value)
                    }
                    indices.append(container.currentIndex)
                }
            }
        }

        struct Wrapped: Decodable {
            var value: Int
            init(from decoder: any Decoder) throws { value = try decoder.singleValueContainer().decode(Int.self) }
        }

        @Test func decodeIfPresentAtTheEndAdvancesCurrentIndexAsInJSON() throws {
            let stored: [Int?] = [7, nil]
            let expected = try JSONDecoder().decode(Indices.self, from: JSONEncoder().encode(stored))
            #expect(expected == Indices(values: [7, nil, nil, nil], indices: [1, 2, 3, 4]))
            #expect(try codec.decode(Indices.self, from: codec.encode(stored)) == expected)
        }
    }
}
