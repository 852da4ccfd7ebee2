import Foundation
import Testing
@testable import ModelStoreCodecs
import ModelStoreTestSupport

extension JSONCodecTests {
    /// Models encoded by `JSONEncoder` decode, by ModelStore's decoder itself, exactly as `JSONDecoder` decodes them.
    @Suite("JSON decoder: models round-trip as with JSONDecoder")
    struct Models {
        @Test func profile() throws {
            try expectRoundTrip(Profile.sample)
        }

        @Test func everyScalarType() throws {
            try expectRoundTrip(Scalars())
            var zeros = Scalars()
            (zeros.int, zeros.int8, zeros.int16, zeros.int32, zeros.int64) = (0, 0, 0, 0, 0)
            (zeros.uint, zeros.uint8, zeros.uint16, zeros.uint32, zeros.uint64) = (0, 0, 0, 0, 0)
            (zeros.double, zeros.float, zeros.string, zeros.data) = (-0.0, -0.0, "", Data())
            try expectRoundTrip(zeros)
        }

        @Test func integerLimits() throws {
            try expectRoundTrip([Int64.min, Int64.max, -1, 0, 1])
            try expectRoundTrip([UInt64.max, UInt64(Int64.max) + 1, 0])
            try expectRoundTrip([Int8.min, Int8.max])
            try expectRoundTrip([UInt8.max])
            try expectRoundTrip([Int16.min, Int16.max])
            try expectRoundTrip([Int32.min, Int32.max])
            try expectRoundTrip([UInt32.max])
        }

        @Test func wideIntegers() throws {
            guard #available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *) else { return }
            try expectRoundTrip([Int128.min, Int128.max, 0, -1])
            try expectRoundTrip([UInt128.max, 0])
        }

        @Test func doubleEdgeValues() throws {
            let values: [Double] = [
                -0.0, 0, .leastNonzeroMagnitude, -.leastNonzeroMagnitude, .leastNormalMagnitude,
                .leastNormalMagnitude.nextDown,
                1.7976931348623157e308,
                -1.7976931348623157e308, 1e20, 1e21, 1e22, 1e23, 0.1, 0.2, 0.30000000000000004, 1 / 3, 2 / 3,
                9_007_199_254_740_994, 123_456_789_012_345_680, 4.35, 100, 1e-7, 1.5e300, .pi, -.ulpOfOne,
            ]
            try expectRoundTrip(values)
            try expectRoundTrip(values.map { Date(timeIntervalSinceReferenceDate: $0) })
        }

        @Test func floatEdgeValues() throws {
            try expectRoundTrip([
                Float(-0.0), 0, .leastNonzeroMagnitude, .leastNormalMagnitude, .greatestFiniteMagnitude,
                -.greatestFiniteMagnitude, 0.1, 1 / 3, 16_777_216, 3.4e38, .pi, 1e10, 1e11,
            ])
        }

        @Test func randomDoublesAndFloatsRoundTripBitForBit() throws {
            var random = SeededGenerator(seed: 0xD0B1E)
            var doubles: [Double] = []
            var floats: [Float] = []
            while doubles.count < 3000 {
                let double = Double(bitPattern: random.next())
                if double.isFinite { doubles.append(double) }
                let float = Float(bitPattern: UInt32(truncatingIfNeeded: random.next()))
                if float.isFinite { floats.append(float) }
                // Values people store: a few decimals, moderate magnitudes.
                doubles.append(Double(Int.random(in: -1_000_000...1_000_000, using: &random)) / 100)
                doubles.append(Double.random(in: -1e6...1e6, using: &random))
                floats.append(Float.random(in: -1000...1000, using: &random))
            }
            try expectRoundTrip(doubles)
            try expectRoundTrip(floats)
        }

        @Test func strings() throws {
            try expectRoundTrip([
                "", " ", "plain", "quote \" backslash \\ slash / tab \t newline \n return \r",
                "controls \u{0}\u{1}\u{8}\u{B}\u{C}\u{1F}\u{7F}", "é ü ñ ß ø", "中文字符", "🙂👨‍👩‍👧‍👦🏳️‍🌈",
                "\u{10FFFF}\u{10000}\u{FFFF}\u{E000}", "line\u{2028}separator\u{2029}", "<html>&amp;</html>",
                String(repeating: "long string ", count: 100), String(repeating: "é", count: 50),
            ])
        }

        @Test func enumsWithAssociatedAndRawValues() throws {
            try expectRoundTrip([Shape.circle(radius: 2.5), .label("hi", bold: true), .empty])
            try expectRoundTrip([Suit.hearts, .spades])
            try expectRoundTrip([Rank.ace, .king])
            try expectRoundTrip(Node.branch([.leaf(1), .branch([.leaf(2), .branch([])])]))
        }

        @Test func classesStoreTheirSuperclassThroughSuperDecoder() throws {
            try expectRoundTrip(Dog(name: "Rex", breed: "collie", nicknames: ["R", "Rexy"]))
            try expectRoundTrip([Animal(name: "snake", legs: 0)])
        }

        @Test func optionalsOfOptionals() throws {
            try expectRoundTrip(
                Optionals(
                    plain: 1, double: .some(.some(2)), elements: ["a", nil], nested: ["x": nil, "y": 3],
                    shape: .empty))
            // `.some(nil)` is written as null, which reads back as nil: the same with either decoder.
            let someNil = Optionals(plain: nil, double: .some(nil), elements: [nil], nested: [:], shape: nil)
            expectSameAsFoundation(Optionals.self, Array(try JSONEncoder().encode(someNil)), fast: .decodes)
            try expectRoundTrip(Optionals(plain: nil, double: nil, elements: [], nested: ["": nil], shape: nil))
        }

        @Test func standardLibraryCollections() throws {
            try expectRoundTrip(Collections.sample)
        }

        @Test func dictionariesLargeAndWithUnicodeKeys() throws {
            let large = Dictionary(uniqueKeysWithValues: (0..<200).map { ("key\($0)", $0) })
            try expectRoundTrip(large)
            try expectRoundTrip(["café": 1, "cafe\u{301}x": 2, "Ω": 3, "K": 4, "\u{1F600}": 5, "a\"b": 6, "tab\t": 7])
            try expectRoundTrip(Dictionary(uniqueKeysWithValues: (0..<100).map { ("ключ\($0)", [$0]) }))
        }

        @Test func deepNesting() throws {
            // Each level is three containers ({"branch":{"_0":[...]}}), so this nests 450 deep, near the limit of 512.
            try expectRoundTrip(Node.chain(depth: 150))
            try expectRoundTrip(Array(repeating: Profile.sample, count: 20))
        }

        @Test func topLevelScalarsAndFoundationTypes() throws {
            try expectRoundTrip(42)
            try expectRoundTrip("top")
            try expectRoundTrip(true)
            try expectRoundTrip(Date(timeIntervalSinceReferenceDate: 1.5))
            try expectRoundTrip(Data("bytes".utf8))
            try expectRoundTrip(URL(string: "relative/path?x=1")!)
            try expectRoundTrip(Decimal(string: "3.14159265358979323846264338327950288")!)
            try expectRoundTrip([
                Decimal(0), Decimal(string: "-0.000001")!, Decimal(string: "1e100")!, Decimal.greatestFiniteMagnitude,
            ])
            try expectRoundTrip(UUID())
            try expectRoundTrip(Optional<Int>.none)
        }
    }
}
