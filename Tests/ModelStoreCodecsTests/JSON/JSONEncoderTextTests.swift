import Foundation
import Testing
@testable import ModelStoreCodecs
import ModelStoreTestSupport

extension JSONCodecTests {
    /// Numbers and strings come out byte for byte as Foundation writes them (arrays and scalars have a
    /// deterministic order, so whole documents are compared).
    @Suite("JSON encoder: numbers and strings")
    struct EncoderText {
        /// One value under one key: goes through a keyed container, which Foundation formats on its own path
        /// (arrays of scalars take a separate one in Foundation).
        struct Box<Value: Codable & Equatable>: Codable, Equatable {
            var value: Value
        }

        static let doubles: [Double] = [
            0, -0.0, 1, -1, 0.1, 0.2, 0.3, 1.5, 100, 1e15, 1e16, 1e17, 1e20, 1e21, 1e22, 1e100, 1e-5, 1e-6, 1e-7,
            1.0e-300, .leastNonzeroMagnitude, -.leastNonzeroMagnitude, .leastNormalMagnitude, .greatestFiniteMagnitude, -.greatestFiniteMagnitude,
            9_007_199_254_740_992, 9_007_199_254_740_994, 123_456_789_012_345_680, 3.141592653589793,
            2.718281828459045, 98.625, 24.99, 712_345_678.25, -123_456.789, 0.000123, 4.35, 1 / 3.0,
        ]

        static let floats: [Float] = [
            0, -0.0, 1, 0.1, 3.25, 1e10, 1e-10, 16_777_216, 16_777_218, .leastNonzeroMagnitude, .leastNormalMagnitude,
            .greatestFiniteMagnitude, 1 / 3.0, 0.3, 1e38, -2.5e-7,
        ]

        @Test func doublesArePrintedAsFoundationPrintsThem() {
            for value in Self.doubles {
                expectSameBytes(value)
                expectSameBytes(Box(value: value))
            }
            expectSameBytes(Self.doubles)
        }

        @Test func doublesFromRandomBitPatternsArePrintedAsFoundationPrintsThem() {
            var random = SeededGenerator(seed: 0xD0_0B1E)
            var values: [Double] = []
            while values.count < 2_000 {
                let value = Double(bitPattern: random.next())
                if value.isFinite { values.append(value) }
            }
            expectSameBytes(values)
            for value in values.prefix(300) { expectSameBytes(Box(value: value)) }
        }

        @Test func floatsArePrintedInTheirShortestForm() {
            for value in Self.floats {
                expectSameBytes(value)
                expectSameBytes(Box(value: value))
            }
            var random = SeededGenerator(seed: 0xF1_0A7)
            var values: [Float] = []
            while values.count < 1_000 {
                let value = Float(bitPattern: UInt32(truncatingIfNeeded: random.next()))
                if value.isFinite { values.append(value) }
            }
            expectSameBytes(values)
        }

        @Test func integersOfEveryWidthArePrintedInDecimal() {
            expectSameBytes([Int.min, -1, 0, 1, Int.max])
            expectSameBytes([Int8.min, Int8.max])
            expectSameBytes([Int16.min, Int16.max])
            expectSameBytes([Int32.min, Int32.max])
            expectSameBytes([Int64.min, Int64.max])
            expectSameBytes([UInt.min, UInt.max])
            expectSameBytes([UInt8.max, UInt8.min])
            expectSameBytes([UInt16.max])
            expectSameBytes([UInt32.max])
            expectSameBytes([UInt64.max, 10_000_000_000_000_000_000])
            expectSameBytes(Box(value: Int.min))
            expectSameBytes(Box(value: UInt64.max))
            expectSameBytes(Int8(-128))
            var random = SeededGenerator(seed: 0x1_1E6E)
            expectSameBytes((0..<500).map { _ in Int(bitPattern: UInt(random.next())) })
        }

        @Test func int128AndUInt128ArePrintedInDecimal() {
            expectSameBytes([Int128.min, -1, 0, Int128.max])
            expectSameBytes([UInt128.min, UInt128.max])
            expectSameBytes(Box(value: Int128.min))
        }

        @Test func nonFiniteNumbersAreLeftToFoundationWhichThrows() {
            for value in [Double.nan, .infinity, -.infinity] {
                expectLeftToFoundation(value)
                expectLeftToFoundation(Box(value: value))
            }
            expectLeftToFoundation([Float.nan])
            expectLeftToFoundation(Box(value: Date(timeIntervalSinceReferenceDate: .infinity)))
        }

        static let strings: [String] = [
            "", "plain", "quote \" backslash \\ slash / end", "https://example.com/a/b", "tab\tnewline\ncr\r",
            "\u{8}\u{C}", "\u{7F}", "é", "e\u{301}", "中文", "🙂", "👩‍👩‍👧‍👦", "\u{10FFFF}", "\u{2028}\u{2029}",
            "\u{FEFF}bom", "\r\n", String(repeating: "long text ", count: 100),
        ]

        @Test func stringsAreEscapedAsFoundationEscapesThem() {
            for value in Self.strings {
                expectSameBytes(value)
                expectSameBytes(Box(value: value))
            }
            expectSameBytes(Self.strings)
        }

        @Test func everyControlCharacterIsEscapedAsFoundationEscapesIt() {
            let controls = (0..<0x20).map { String(UnicodeScalar(UInt8($0))) }
            expectSameBytes(controls)
            expectSameBytes(controls.joined())
            expectSameBytes(Box(value: controls.joined()))
        }

        /// The scan for bytes to escape reads 16 bytes at a time, 8 + 8 or 4 + 4 overlapping ones for shorter
        /// strings, and the last block overlapping the one before: a byte to escape (and a byte that only looks
        /// close to one) at every position of every length up to three blocks, as a value and as a key.
        @Test func aByteToEscapeIsFoundAtEveryPositionOfEveryLength() {
            let specials: [Character] = ["\"", "\\", "/", "\u{0}", "\u{1F}", " ", "!", "#", "[", "]", "~", "\u{7F}", "é"]
            for length in 0...48 {
                for position in 0..<max(length, 1) {
                    for special in specials where length > 0 || special == "\"" {
                        var characters = Array(repeating: Character("a"), count: length)
                        if length > 0 { characters[position] = special }
                        let value = String(characters)
                        expectSameBytes(value)
                        expectSameBytes([value: 1])
                    }
                }
            }
        }

        @Test func keysAreEscapedLikeStrings() {
            // "é" and "e\u{301}" are one key to a Dictionary, so keep the first.
            let dictionary = Dictionary(Self.strings.map { ($0, 1) }, uniquingKeysWith: { first, _ in first })
            for key in dictionary.keys { expectSameBytes([key: 1]) }
            expectEncodesLikeFoundation(dictionary)
        }
    }
}
