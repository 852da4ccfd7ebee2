import Foundation
import Testing
@testable import ModelStoreCodecs

extension JSONCodecTests {
    /// Whole models come out as Foundation writes them, and what the stream cannot reproduce goes to Foundation.
    @Suite("JSON encoder: models against JSONEncoder")
    struct EncoderModels {
        /// Canonically equivalent keys are equal Strings, so Foundation's Dictionary keeps only one of them.
        @Test func equivalentKeysCountAsTheSameKey() {
            expectLeftToFoundation(KeyPair(first: "é", second: "e\u{301}"))
        }

        /// Writes two keys chosen by the test.
        struct KeyPair: Encodable {
            var first: String
            var second: String
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: AnyKey.self)
                try container.encode(1, forKey: AnyKey(stringValue: first))
                try container.encode(2, forKey: AnyKey(stringValue: second))
            }
        }

        struct AnyKey: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }

        @Test func profileEncodesLikeFoundation() {
            expectEncodesLikeFoundation(Profile.sample)
        }

        @Test func scalarsAndFoundationTypesEncodeLikeFoundation() {
            expectEncodesLikeFoundation(Scalars())
            expectSameBytes(Date(timeIntervalSinceReferenceDate: 712_345_678.25))
            expectSameBytes(Data([0xFB, 0xFF, 0x00, 0x3E]))  // base64 with "+" and "/"
            expectSameBytes(URL(string: "https://example.com/a%20b?q=1#frag")!)
            expectSameBytes([Decimal(string: "-12345.6789")!, Decimal(0), Decimal(string: "1e30")!])
            expectSameBytes(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!)
        }

        @Test func decimalNaNIsLeftToFoundation() {
            expectLeftToFoundation([Decimal.nan])
        }

        @Test func enumsWithAssociatedValuesEncodeLikeFoundation() {
            for shape in [Shape.circle(radius: 2.5), .label("x", bold: false), .empty] {
                expectEncodesLikeFoundation(shape)
            }
            expectEncodesLikeFoundation([Suit.hearts, .clubs])
            expectSameBytes(Rank.king)
        }

        @Test func optionalsWriteNullOnlyWhereEncodeNilIsCalled() {
            let optionals = Optionals(plain: nil, double: nil, elements: ["a", nil], nested: ["k": nil], shape: nil)
            expectEncodesLikeFoundation(optionals)
            #expect(fastEncoded(optionals).map { String(decoding: $0, as: UTF8.self) }?.contains("plain") == false)
            // `.some(nil)` is present, so encodeIfPresent writes it: null (which reads back as nil).
            let someNil = Optionals(plain: nil, double: .some(nil), elements: [], nested: [:], shape: nil)
            let fast = fastEncoded(someNil) ?? []
            #expect(canonical(fast) == canonical((try? foundationEncoded(someNil)) ?? []))
            #expect(String(decoding: fast, as: UTF8.self).contains(#""double":null"#))
            expectEncodesLikeFoundation(Optionals(plain: 1, double: 2, elements: [], nested: [:], shape: .empty))
            expectSameBytes(Int?.none)
        }

        @Test func collectionsEncodeLikeFoundation() {
            expectEncodesLikeFoundation(Collections.sample)
            expectSameBytes([[Int]]())
            expectSameBytes([String: Int]())
        }

        /// Below the limit the codec writes what Foundation writes; past it both throw `invalidValue` (ModelStore's
        /// before Foundation's encoder, which recurses without limit, ever sees the model).
        @Test func nestingBelowTheLimitIsEncodedAndDeeperThrowsInvalidValue() {
            expectEncodesLikeFoundation(Node.chain(depth: 80))  // three containers a level
            expectEncodesLikeFoundation(Node.chain(depth: 169))  // 509 containers, the leaf two more
            for depth in [171, 600] {
                #expect(throws: EncodingError.self) { try foundationEncoded(Node.chain(depth: depth)) }
                #expect {
                    try JSONCodecTests.codec.encode(Node.chain(depth: depth))
                } throws: { error in
                    guard case EncodingError.invalidValue = error else { return false }
                    return true
                }
            }
        }

        @Test func superEncoderIsLeftToFoundation() {
            expectLeftToFoundation(Dog(name: "Rex", breed: "collie", nicknames: ["r"]))
        }

        /// A model that writes its keyed container in two calls to `container(keyedBy:)`, as a subclass calling
        /// `super.encode(to: encoder)` does; Foundation merges them into one object.
        struct TwoContainers: Codable, Equatable {
            var a = 1
            var b = "two"

            enum CodingKeys: String, CodingKey { case a, b }

            func encode(to encoder: any Encoder) throws {
                var first = encoder.container(keyedBy: CodingKeys.self)
                try first.encode(a, forKey: .a)
                var second = encoder.container(keyedBy: CodingKeys.self)
                try second.encode(b, forKey: .b)
            }
        }

        @Test func aContainerRequestedTwiceIsOneObject() {
            expectEncodesLikeFoundation(TwoContainers())
        }

        /// Hand-written encoders doing things a stream cannot do, or that Foundation answers in its own way.
        struct Odd: Encodable {
            enum Kind { case duplicateKey, encodesNothingNested, reusesClosedContainer, nestedContainers }
            var kind: Kind

            struct Nothing: Encodable {
                func encode(to encoder: any Encoder) throws {}
            }

            enum Key: String, CodingKey { case a, b, c }

            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: Key.self)
                switch kind {
                case .duplicateKey:
                    try container.encode(1, forKey: .a)
                    try container.encode(2, forKey: .a)
                case .encodesNothingNested:
                    try container.encode(Nothing(), forKey: .a)
                case .reusesClosedContainer:
                    var nested = container.nestedUnkeyedContainer(forKey: .a)
                    try nested.encode(1)
                    try container.encode(2, forKey: .b)
                    try nested.encode(3)
                case .nestedContainers:
                    var nested = container.nestedContainer(keyedBy: Key.self, forKey: .a)
                    try nested.encode(true, forKey: .c)
                    var list = nested.nestedUnkeyedContainer(forKey: .b)
                    try list.encode("x")
                    var inner = list.nestedContainer(keyedBy: Key.self)
                    try inner.encodeNil(forKey: .a)
                    try list.encode(2.5)
                    try container.encode(Int8(-1), forKey: .b)
                }
            }
        }

        @Test func aKeyEncodedTwiceIsLeftToFoundation() {
            expectLeftToFoundation(Odd(kind: .duplicateKey))
        }

        @Test func aValueThatEncodesNothingIsLeftToFoundation() {
            expectLeftToFoundation(Odd(kind: .encodesNothingNested))
            expectLeftToFoundation(Odd.Nothing())  // Foundation throws at the top level
        }

        @Test func aContainerUsedAfterItWasClosedIsLeftToFoundation() {
            expectLeftToFoundation(Odd(kind: .reusesClosedContainer))
        }

        @Test func nestedContainersEncodeLikeFoundation() throws {
            let fast = try #require(fastEncoded(Odd(kind: .nestedContainers)))
            #expect(canonical(fast) == canonical(try foundationEncoded(Odd(kind: .nestedContainers))))
        }

        /// Records the coding paths it is given, to compare the fast encoder's with Foundation's.
        final class PathProbe: Encodable, @unchecked Sendable {  // Only used from one test at a time.
            var paths: [String] = []
            struct Leaf: Encodable {
                let probe: PathProbe
                func encode(to encoder: any Encoder) throws {
                    probe.paths.append(encoder.codingPath.map(\.stringValue).joined(separator: "."))
                    var container = encoder.singleValueContainer()
                    try container.encode(probe.paths.count)
                }
            }

            enum Key: String, CodingKey { case a, b }

            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: Key.self)
                try container.encode(Leaf(probe: self), forKey: .a)
                var list = container.nestedUnkeyedContainer(forKey: .b)
                try list.encode(Leaf(probe: self))
                var inner = list.nestedContainer(keyedBy: Key.self)
                paths.append(inner.codingPath.map(\.stringValue).joined(separator: "."))
                try inner.encode([Leaf(probe: self)], forKey: .a)
            }
        }

        @Test func codingPathsAreFoundations() throws {
            let fastProbe = PathProbe()
            _ = try #require(fastEncoded(fastProbe))
            let foundationProbe = PathProbe()
            _ = try foundationEncoded(foundationProbe)
            #expect(fastProbe.paths == foundationProbe.paths)
            // Foundation's encoders for values in nested containers leave out the containers' keys.
            #expect(fastProbe.paths == ["a", "Index 0", "b.Index 1", "a.Index 0"])
        }
    }
}
