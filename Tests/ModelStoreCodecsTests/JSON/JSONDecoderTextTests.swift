import Foundation
import Testing
@testable import ModelStoreCodecs
import ModelStoreTestSupport

extension JSONCodecTests {
    /// Hand-written JSON texts: the codec returns exactly what `JSONDecoder` returns, or both throw.
    @Suite("JSON decoder: hand-written documents decode as with JSONDecoder")
    struct Texts {
        struct Small: Codable, Equatable {
            var a: Int
            var b: String?
            var c: [Double]?
        }

        struct K: Codable, Equatable {
            var K: Int
        }

        struct Ints: Decodable, Equatable {
            var int: Int?
            var int8: Int8?
            var uint: UInt?
            var uint64: UInt64?
            var int64: Int64?
        }

        @Test func whitespaceAndKeyOrder() {
            for json in [
                #"{"a":1,"b":"x","c":[1.5]}"#,
                " \t\r\n{ \"c\" : [ 1.5 ] , \"b\" :\"x\",\n\"a\":1 } \n",
                #"{"c":null,"a":1}"#,
                #"{"b":null,"a":-0}"#,
                #"{"a":1,"unknown":{"deep":[1,{"x":null}]},"b":"y"}"#,
            ] {
                expectSameAsFoundation(Small.self, json: json, fast: .decodes)
            }
        }

        @Test func escapesInValuesAndKeys() {
            for json in [
                #"{"a":1,"b":"\"\\\/\b\f\n\r\t\u0041\u00e9\u4e2d\ud83d\ude00"}"#,
                #"{"\u0061":2,"b":"\u0000"}"#,
                #"{"a":3,"b":"a\/b"}"#,
            ] {
                expectSameAsFoundation(Small.self, json: json, fast: .decodes)
            }
            for json in [
                #"{"a":1,"b":"\ud800"}"#,  // lone high surrogate
                #"{"a":1,"b":"\udc00"}"#,  // lone low surrogate
                #"{"a":1,"b":"\ud800\u0041"}"#,
                #"{"a":1,"b":"\x"}"#,
                #"{"a":1,"b":"\u12G4"}"#,
                "{\"a\":1,\"b\":\"tab\there\"}",  // raw control character
            ] {
                expectSameAsFoundation(Small.self, json: json, fast: .defers)
            }
        }

        /// Unescaping copies the plain bytes between escapes in runs: runs of every length around escapes at the
        /// start, the end and side by side, ASCII and not, must come out exactly as Foundation's.
        @Test func plainRunsBetweenEscapes() {
            let long = String(repeating: "abcdefghij", count: 7)
            for text in [
                #"\"33a64df551425fcc55e4d42a148795d9f25f89d4\""#, #"\"x"#, #"x\""#, #"\\\\"#, #"\n"#,
                #"a\nb"#, "\(long)\\t\(long)", "é\\u00e9é\\\"中", #"ab\u0041cd\ud83d\ude00ef"#, "\\/\(long)",
            ] {
                expectSameAsFoundation(Small.self, json: #"{"a":1,"b":""# + text + #""}"#, fast: .decodes)
                expectSameAsFoundation(Small.self, json: #"{""# + text + #"":0,"a":1}"#, fast: .decodes)
            }
        }

        /// The scanner reads a string's last bytes before the document's end as one word ending there: every tail
        /// length, with what needs a closer look (an escape, non-ASCII, a control character, bad UTF-8, a missing
        /// quote) at every place in it, must give Foundation's answer.
        @Test func stringsEndingInTheDocumentsLastBytes() {
            let plain = Array("0123456789abcdefghij".utf8)
            let valid: [[UInt8]] = [[], Array(#"\""#.utf8), Array(#"\u00e9"#.utf8), Array("é".utf8), Array("中".utf8)]
            let invalid: [[UInt8]] = [[0x09], [0xFF], [0xC3], Array("中".utf8.prefix(2)), Array(#"\"#.utf8)]
            for length in 0...plain.count {
                for (isValid, specials) in [(true, valid), (false, invalid)] {
                    for special in specials {
                        for place in [0, length / 2, length] {
                            let content = Array(plain[..<place]) + special + Array(plain[place..<length])
                            let quoted = [UInt8(ascii: "\"")] + content + [UInt8(ascii: "\"")]
                            for padding in [0, 1, 7] {
                                let spaces = [UInt8](repeating: 0x20, count: padding)
                                let object = Array(#"{"a":1,"b":"#.utf8) + quoted + spaces + [UInt8(ascii: "}")]
                                expectSameAsFoundation(String.self, quoted + spaces, fast: isValid ? .decodes : .either)
                                expectSameAsFoundation(Small.self, object, fast: isValid ? .decodes : .either)
                            }
                            // Unterminated: the document ends inside the string.
                            expectSameAsFoundation(String.self, Array(quoted.dropLast()))
                            expectSameAsFoundation(Small.self, Array(#"{"a":1,"b":"#.utf8) + quoted.dropLast())
                        }
                    }
                }
            }
        }

        @Test func keysMatchAsStringsDo() {
            // Foundation compares keys as Strings, which follow Unicode canonical equivalence: the Kelvin sign is K.
            expectSameAsFoundation(K.self, json: "{\"\u{212A}\":5}", fast: .decodes)
            expectSameAsFoundation(K.self, json: #"{"\u212A":6}"#, fast: .decodes)
            expectSameAsFoundation([String: Int].self, json: "{\"é\":1,\"e\u{301}\":2}", fast: .decodes)
            expectSameAsFoundation([String: Int].self, json: "{\"e\u{301}\":1,\"é\":2}", fast: .decodes)
        }

        @Test func duplicateKeysKeepTheFirst() {
            expectSameAsFoundation(Small.self, json: #"{"a":1,"a":2}"#, fast: .decodes)
            expectSameAsFoundation(Small.self, json: #"{"a":1,"b":"x","a":"not an int"}"#, fast: .decodes)
            expectSameAsFoundation([String: Int].self, json: #"{"x":1,"y":2,"x":3}"#, fast: .decodes)
            expectSameAsFoundation(K.self, json: "{\"K\":1,\"\u{212A}\":2}", fast: .decodes)
            expectSameAsFoundation(Shape.self, json: #"{"empty":{},"empty":{}}"#, fast: .decodes)
            let many = (0..<40).map { "\"k\($0 % 35)\":\($0)" }.joined(separator: ",")
            expectSameAsFoundation([String: Int].self, json: "{\(many)}", fast: .decodes)
        }

        @Test func hugeObjectsDecodeInLinearTime() {
            // 50,000 keys, all distinct, then all the same: duplicate checks must not go quadratic (which would take
            // over a billion comparisons here).
            let distinct = "{" + (0..<50_000).map { "\"k\($0)\":\($0)" }.joined(separator: ",") + "}"
            let same = "{" + (0..<50_000).map { "\"k\":\($0)" }.joined(separator: ",") + "}"
            let clock = ContinuousClock()
            let elapsed = clock.measure {
                #expect((try? fast([String: Int].self, Array(distinct.utf8)).get().count) == 50_000)
                #expect((try? fast([String: Int].self, Array(same.utf8)).get()) == ["k": 0])
            }
            // A bound, not a benchmark: quadratic checks would take minutes; linear ones take
            // milliseconds, and a loaded machine must not make them fail.
            #expect(elapsed < .seconds(30))
            expectSameAsFoundation(
                Small.self, json: "{" + (0..<100).map { "\"k\($0)\":\($0)" }.joined(separator: ",") + ",\"a\":7}",
                fast: .decodes)
        }

        /// Reads the keys `k0`...`k59` in reverse order, and one that is missing.
        struct Backwards: Decodable, Equatable {
            var values: [Int?] = []

            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: Containers.AnyKey.self)
                for index in (0..<60).reversed() {
                    values.append(try container.decodeIfPresent(Int.self, forKey: Containers.AnyKey("k\(index)")))
                }
                values.append(try container.decodeIfPresent(Int.self, forKey: Containers.AnyKey("absent")))
            }
        }

        @Test func largeObjectsReadOutOfOrderAndWithDuplicates() {
            let keys = (0..<60).map { "\"k\($0)\":\($0)" }
            expectSameAsFoundation(Backwards.self, json: "{" + keys.joined(separator: ",") + "}", fast: .decodes)
            expectSameAsFoundation(
                Backwards.self, json: "{" + keys.shuffled().joined(separator: ",") + "}", fast: .decodes)
            // Duplicates the scanner's check never sees (past 32 pairs): the first still wins.
            for duplicate in ["\"k50\":-1", "\"k5\":-2", "\"k59\":-3"] {
                expectSameAsFoundation(
                    Backwards.self, json: "{" + (keys + [duplicate]).joined(separator: ",") + "}", fast: .decodes)
                expectSameAsFoundation(
                    Backwards.self, json: "{" + ([duplicate] + keys).joined(separator: ",") + "}", fast: .decodes)
            }
            // An escaped or non-ASCII key past 32 pairs.
            expectSameAsFoundation(
                Backwards.self, json: "{" + (keys + [#""k\u0031":-4"#]).joined(separator: ",") + "}",
                fast: .decodes)
            expectSameAsFoundation(
                Backwards.self, json: "{" + (keys + ["\"\u{212A}\":-5"]).joined(separator: ",") + "}",
                fast: .decodes)
        }

        @Test func missingExtraAndNullKeys() {
            expectSameAsFoundation(Small.self, json: #"{"b":"x"}"#, fast: .defers)
            expectSameAsFoundation(Small.self, json: #"{"a":null}"#, fast: .defers)
            expectSameAsFoundation(Small.self, json: #"{"a":1,"b":null,"c":null,"d":[]}"#, fast: .decodes)
            expectSameAsFoundation(Optionals.self, json: #"{"elements":[],"nested":{}}"#, fast: .decodes)
            expectSameAsFoundation(
                Optionals.self, json: #"{"double":null,"elements":[null],"nested":{"a":null}}"#,
                fast: .decodes)
        }

        @Test func wrongTypes() {
            for json in [
                #"{"a":"1"}"#, #"{"a":true}"#, #"{"a":[1]}"#, #"{"a":{}}"#, #"{"a":1,"b":2}"#, #"{"a":1,"c":"x"}"#,
                #"{"a":1,"c":[null]}"#, #"[1]"#, #""str""#, "null", "1",
            ] {
                expectSameAsFoundation(Small.self, json: json, fast: .defers)
            }
            expectSameAsFoundation(Bool.self, json: "1", fast: .defers)
            expectSameAsFoundation(String.self, json: "1", fast: .defers)
            expectSameAsFoundation(Date.self, json: #""2024-01-01""#, fast: .defers)
            expectSameAsFoundation(Date.self, json: "null", fast: .defers)
            expectSameAsFoundation([Date].self, json: "[null]", fast: .defers)
            expectSameAsFoundation(Data.self, json: "12", fast: .defers)
            expectSameAsFoundation(URL.self, json: "12", fast: .defers)
            expectSameAsFoundation(Decimal.self, json: #""12""#, fast: .defers)
        }

        @Test func integersWrittenAsFloatingPoint() {
            for (json, expectation) in [
                ("1.0", FastExpectation.decodes), ("1e2", .decodes), ("1E+2", .decodes), ("-0", .decodes),
                ("-0.0", .decodes), ("100e-2", .decodes), ("0.5e1", .decodes), ("1e-400", .either), ("1.5", .defers),
                ("1e20", .defers), ("9007199254740993.5", .defers), ("1e18", .defers), ("-1", .either),
                ("128", .either), ("-129", .either), ("255", .either), ("256", .either),
                ("18446744073709551615", .either),
                ("18446744073709551616", .defers), ("-9223372036854775808", .either), ("-9223372036854775809", .defers),
                ("9223372036854775807", .either), ("9223372036854775808", .either),
                ("12345678901234567890123", .defers),
                ("4.5e15", .either), ("9007199254740991.0", .either), ("9007199254740992.0", .defers),
            ] {
                for field in ["int", "int8", "uint", "uint64", "int64"] {
                    expectSameAsFoundation(
                        Ints.self, json: "{\"\(field)\":\(json)}", fast: expectation == .decodes ? .decodes : .either)
                }
            }
            expectSameAsFoundation([UInt].self, json: "[-0, -0.0, 0e5]", fast: .decodes)
            expectSameAsFoundation([UInt].self, json: "[-1]", fast: .defers)
        }

        @Test func floatingPointEdgeTexts() {
            for json in [
                "0", "-0", "0.0", "-0.0", "0e10", "0e-999", "-0.0e+999", "1", "-1", "0.1", "1e-7", "5e-324", "4e-324",
                "2.4703282292062328e-324", "1.7976931348623157e308", "1.7976931348623158e308",
                "123456789012345678901234567890", "0.000000000000000000000000000000001234",
                "1.00000000000000011102230246251565404236316680908203125",
                "9007199254740993", "3.14159265358979323846264338327950288419716939937510", "1e22", "1e23", "8.5e-15",
            ] {
                expectSameAsFoundation(Double.self, json: json, fast: .decodes)
                expectSameAsFoundation(Float.self, json: json, fast: .either)
                expectSameAsFoundation(Decimal.self, json: json, fast: .either)
            }
            // Overflow to infinity, and underflow to zero from non-zero digits (the first rounds down to 0).
            for json in ["1e309", "-1e309", "1e-400", "2e-324", "2.4703282292062327e-324", "1e400000000000"] {
                expectSameAsFoundation(Double.self, json: json, fast: .defers)
            }
            // Decimal holds 38 digits and exponents up to 127: longer texts round or fail, exactly as in Foundation.
            for zeros in [37, 38, 39, 120, 127, 128, 165, 166, 167, 170, 198, 199, 250] {
                expectSameAsFoundation(Decimal.self, json: "1" + String(repeating: "0", count: zeros))
                expectSameAsFoundation(Decimal.self, json: "-0." + String(repeating: "0", count: zeros) + "1")
                expectSameAsFoundation(Decimal.self, json: "12345678901234567890123456789012345678901e\(zeros)")
                expectSameAsFoundation(Decimal.self, json: "1e-\(zeros)")
            }
            for json in [
                "3.4028235e38", "3.4028236e38", "3.5e38", "1e-45", "7e-46", "1e-46", "1.17549435e-38", "16777217",
            ] {
                expectSameAsFoundation(Float.self, json: json, fast: .either)
            }
        }

        /// The documented exception to "exactly Foundation's results": RFC 8259 allows a zero significand with an
        /// exponent, and ModelStore reads it as zero, where Foundation's underflow check throws for these spellings.
        @Test(arguments: ["0e5", "0.00e1", "-0.0e1", "0E9", "0.00e+1"])
        func zeroWithAnExponentReadsAsZeroWhereFoundationThrows(_ number: String) throws {
            let json = Data("[\(number)]".utf8)
            #expect(throws: DecodingError.self) { try JSONDecoder().decode([Double].self, from: json) }
            let isNegative = number.hasPrefix("-")
            let double = try codec.decode([Double].self, from: json)
            #expect(double == [0] && double[0].sign == (isNegative ? .minus : .plus))
            #expect(try codec.decode([Float].self, from: json) == [0])
            #expect(try codec.decode([Date].self, from: json) == [Date(timeIntervalSinceReferenceDate: 0)])
            // Integer and Decimal reads agree with Foundation.
            expectSameAsFoundation([Int].self, json: "[\(number)]")
            expectSameAsFoundation([Decimal].self, json: "[\(number)]")
        }

        @Test func randomDecimalTextsParseLikeStrtod() {
            var random = SeededGenerator(seed: 0x5EED)
            var texts: [String] = []
            for _ in 0..<2000 {
                let digits = (0..<Int.random(in: 1...25, using: &random)).map { _ in
                    String(Int.random(in: 0...9, using: &random))
                }
                var text = (Bool.random(using: &random) ? "-" : "") + digits.joined().drop { $0 == "0" }
                if text.isEmpty || text == "-" { text += "0" }
                if Bool.random(using: &random) {
                    text +=
                        "."
                        + (0..<Int.random(in: 1...20, using: &random)).map { _ in
                            String(Int.random(in: 0...9, using: &random))
                        }.joined()
                }
                if Bool.random(using: &random) {
                    text += "e\(Int.random(in: -340...310, using: &random))"
                }
                texts.append(text)
            }
            // Element by element, since one out-of-range value fails a whole array.
            for text in texts {
                expectSameAsFoundation(Double.self, json: text)
                expectSameAsFoundation(Float.self, json: text)
                expectSameAsFoundation(Decimal.self, json: text)
                expectSameAsFoundation(Int.self, json: text)
            }
        }

        @Test func specialFoundationTypes() {
            for json in [
                #""QQ==""#, #""QR==""#, #""QQ""#, #""Q Q==""#, #""QQ=\u003d""#, #""""#, #""@@@@""#, #""QUJD""#,
            ] {
                expectSameAsFoundation(Data.self, json: json)
            }
            for json in [#""http://a b""#, #""""#, #""relative/path""#, #""https://x.org/%zz""#, #""mailto:a@b.c""#] {
                expectSameAsFoundation(URL.self, json: json)
            }
            expectSameAsFoundation(UUID.self, json: #""E621E1F8-C36C-495A-93FC-0C247A3E6E5F""#, fast: .decodes)
            expectSameAsFoundation(UUID.self, json: #""not a uuid""#, fast: .defers)
        }

        @Test func malformedDocuments() {
            for json in [
                "", " ", "{", "}", "[", "[1,]", "{\"a\":1,}", "[1 2]", "{\"a\" 1}", "{a:1}", "{'a':1}", "01", "1.",
                ".5", "-", "+1", "1e", "1e+", "0x10", "NaN", "Infinity", "tru", "nul", "[1]x", "[1]\u{0}", "\"abc",
                "\u{FEFF}[1]", "[1]]", "[[1]", "{\"a\":1}}", "\u{0C}1", "[\"\\u\"]",
            ] {
                expectSameAsFoundation([Int].self, json: json, fast: .defers)
                expectSameAsFoundation(Int.self, json: json, fast: .defers)
            }
        }

        @Test func invalidUTF8() {
            let prefix = Array(#"["ok",""#.utf8)
            for bad: [UInt8] in [
                [0xFF], [0xC0, 0x80], [0xE0, 0x80, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80],
                [0xC3], [0xE2, 0x82], [0x80], [0xF8, 0x88, 0x80, 0x80, 0x80],
            ] {
                expectSameAsFoundation([String].self, prefix + bad + Array("\"]".utf8), fast: .defers)
                // In a key, and in a value the model never reads.
                expectSameAsFoundation([String: Int].self, Array("{\"".utf8) + bad + Array("\":1}".utf8), fast: .defers)
                expectSameAsFoundation(
                    Small.self, Array(#"{"a":1,"z":""#.utf8) + bad + Array("\"}".utf8), fast: .defers)
            }
        }

        @Test func nestingLimit() {
            func nested(_ depth: Int) -> String {
                String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
            }
            struct Anything: Decodable, Equatable {
                init(from decoder: any Decoder) throws {}
            }
            expectSameAsFoundation(Anything.self, json: nested(512), fast: .decodes)
            expectSameAsFoundation(Anything.self, json: nested(513), fast: .defers)
            expectSameAsFoundation(Anything.self, json: "[" + nested(511) + ",{}]", fast: .decodes)
            expectSameAsFoundation(
                Anything.self,
                json: String(repeating: "{\"a\":", count: 513) + "1" + String(repeating: "}", count: 513), fast: .defers
            )
            expectSameAsFoundation(Anything.self, json: String(repeating: "[", count: 100_000), fast: .defers)
        }
    }
}
