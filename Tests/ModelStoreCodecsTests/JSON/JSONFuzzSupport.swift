import Foundation
import ModelStoreTestSupport

extension JSONCodecTests {
    /// Any JSON value, decoded the way generic JSON models usually are: by trying each type in turn.
    indirect enum JSONValue: Codable, Equatable {
        case null
        case bool(Bool)
        case number(Double)
        case string(String)
        case array([JSONValue])
        case object([String: JSONValue])

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() {
                self = .null
            } else if let bool = try? container.decode(Bool.self) {
                self = .bool(bool)
            } else if let number = try? container.decode(Double.self) {
                self = .number(number)
            } else if let string = try? container.decode(String.self) {
                self = .string(string)
            } else if let array = try? container.decode([JSONValue].self) {
                self = .array(array)
            } else {
                self = .object(try container.decode([String: JSONValue].self))
            }
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .null: try container.encodeNil()
            case .bool(let value): try container.encode(value)
            case .number(let value): try container.encode(value)
            case .string(let value): try container.encode(value)
            case .array(let value): try container.encode(value)
            case .object(let value): try container.encode(value)
            }
        }
    }

    /// A JSON document as text pieces: numbers and literals keep their exact spelling, strings their value.
    indirect enum RawJSON {
        case literal(String)
        case string(String)
        case array([RawJSON])
        case object([(key: String, value: RawJSON)])

        /// Parses well-formed JSON (such as JSONEncoder's output).
        static func parse(_ text: String) -> RawJSON {
            var scalars = Array(text.unicodeScalars)[...]
            return parseValue(&scalars)
        }

        private static func skipWhitespace(_ input: inout ArraySlice<Unicode.Scalar>) {
            while let first = input.first, [" ", "\t", "\n", "\r"].contains(first) { input.removeFirst() }
        }

        private static func parseValue(_ input: inout ArraySlice<Unicode.Scalar>) -> RawJSON {
            skipWhitespace(&input)
            switch input.first {
            case "{":
                input.removeFirst()
                var members: [(key: String, value: RawJSON)] = []
                skipWhitespace(&input)
                while input.first != "}" {
                    skipWhitespace(&input)
                    let key = parseString(&input)
                    skipWhitespace(&input)
                    input.removeFirst()  // ':'
                    members.append((key, parseValue(&input)))
                    skipWhitespace(&input)
                    if input.first == "," { input.removeFirst() }
                }
                input.removeFirst()
                return .object(members)
            case "[":
                input.removeFirst()
                var elements: [RawJSON] = []
                skipWhitespace(&input)
                while input.first != "]" {
                    elements.append(parseValue(&input))
                    skipWhitespace(&input)
                    if input.first == "," { input.removeFirst() }
                    skipWhitespace(&input)
                }
                input.removeFirst()
                return .array(elements)
            case "\"":
                return .string(parseString(&input))
            default:
                var literal = ""
                while let first = input.first, !",]} \t\r\n".unicodeScalars.contains(first) {
                    literal.unicodeScalars.append(input.removeFirst())
                }
                return .literal(literal)
            }
        }

        private static func parseString(_ input: inout ArraySlice<Unicode.Scalar>) -> String {
            input.removeFirst()  // opening quote
            var result = String.UnicodeScalarView()
            while let scalar = input.first, scalar != "\"" {
                input.removeFirst()
                guard scalar == "\\" else {
                    result.append(scalar)
                    continue
                }
                let escape = input.removeFirst()
                switch escape {
                case "b": result.append("\u{8}")
                case "f": result.append("\u{C}")
                case "n": result.append("\n")
                case "r": result.append("\r")
                case "t": result.append("\t")
                case "u":
                    var unit = hex(&input)
                    if (0xD800..<0xDC00).contains(unit) {
                        input.removeFirst(2)
                        unit = 0x10000 + (unit - 0xD800) << 10 + (hex(&input) - 0xDC00)
                    }
                    result.append(Unicode.Scalar(unit)!)
                default: result.append(escape)
                }
            }
            input.removeFirst()  // closing quote
            return String(result)
        }

        private static func hex(_ input: inout ArraySlice<Unicode.Scalar>) -> UInt32 {
            let digits = String(String.UnicodeScalarView(input.prefix(4)))
            input.removeFirst(4)
            return UInt32(digits, radix: 16)!
        }

        /// Writes the document with random whitespace, member order and string escapes; integers may be respelled
        /// as `n.0` or `nE0`, which JSONDecoder reads as the same integer.
        func text(using random: inout SeededGenerator, respellIntegers: Bool = false, shuffle: Bool = true) -> String {
            var output = ""
            write(into: &output, random: &random, respellIntegers: respellIntegers, shuffle: shuffle)
            return output
        }

        private func write(
            into output: inout String, random: inout SeededGenerator, respellIntegers: Bool, shuffle: Bool
        ) {
            func space() {
                for _ in 0..<[0, 0, 0, 1, 2].randomElement(using: &random)! {
                    output += [" ", "\t", "\n", "\r"].randomElement(using: &random)!
                }
            }
            space()
            switch self {
            case .literal(let text):
                if respellIntegers, text.allSatisfy({ $0.isNumber || $0 == "-" }),
                    Int64(text).map({ abs($0) < 1 << 53 }) == true
                {
                    output += [text, text + ".0", text + "E0", text + ".00e+0"].randomElement(using: &random)!
                } else {
                    output += text
                }
            case .string(let value):
                RawJSON.writeString(value, into: &output, random: &random)
            case .array(let elements):
                output += "["
                for (index, element) in elements.enumerated() {
                    if index > 0 {
                        space()
                        output += ","
                    }
                    element.write(into: &output, random: &random, respellIntegers: respellIntegers, shuffle: shuffle)
                }
                space()
                output += "]"
            case .object(let members):
                output += "{"
                for (index, member) in (shuffle ? members.shuffled(using: &random) : members).enumerated() {
                    if index > 0 { output += "," }
                    space()
                    RawJSON.writeString(member.key, into: &output, random: &random)
                    space()
                    output += ":"
                    member.value.write(
                        into: &output, random: &random, respellIntegers: respellIntegers, shuffle: shuffle)
                    space()
                }
                output += "}"
            }
            space()
        }

        static func writeString(_ value: String, into output: inout String, random: inout SeededGenerator) {
            output += "\""
            for scalar in value.unicodeScalars {
                let escapeAnyway = Int.random(in: 0..<8, using: &random) == 0
                switch scalar {
                case "\"": output += "\\\""
                case "\\": output += "\\\\"
                case "\n" where !escapeAnyway: output += "\\n"
                case "/" where escapeAnyway: output += "\\/"
                case _ where scalar.value < 0x20 || escapeAnyway:
                    if scalar.value > 0xFFFF {
                        let value = scalar.value - 0x10000
                        output += String(format: "\\u%04x\\u%04X", 0xD800 + value >> 10, 0xDC00 + value & 0x3FF)
                    } else {
                        output += String(format: Bool.random(using: &random) ? "\\u%04x" : "\\u%04X", scalar.value)
                    }
                default: output.unicodeScalars.append(scalar)
                }
            }
            output += "\""
        }

        // MARK: - Random documents

        static let keyPool = ["a", "b", "id", "name", "é", "K", "\u{212A}", "", "key with space", "日本", "a\"b", "x/y"]
        static let stringPool: [String] = [
            "", "plain", "with \"quotes\" and \\ backslash", "tab\tnewline\n", "\u{0}\u{1F}", "é", "中文", "🙂",
            "\u{2028}", "e\u{301}", String(repeating: "long ", count: 30),
        ]

        static func random(depth: Int, using random: inout SeededGenerator) -> RawJSON {
            let choice = Int.random(in: 0..<(depth > 0 ? 10 : 6), using: &random)
            switch choice {
            case 0: return .literal(["null", "true", "false"].randomElement(using: &random)!)
            case 1: return .literal(String(Int.random(in: -1_000_000...1_000_000, using: &random)))
            case 2:
                let spellings = [
                    "0", "-0", "1.5", "-2.25e-3", "1E10", "123456789012345678901", "4.9e-324", "1e308",
                    "0.1", "3.141592653589793", "1e400", "-1e-400", "9007199254740993",
                ]
                return .literal(spellings.randomElement(using: &random)!)
            case 3: return .literal(String(Double.random(in: -1e9...1e9, using: &random)))
            case 4, 5: return .string(stringPool.randomElement(using: &random)!)
            case 6, 7:
                return .array(
                    (0..<Int.random(in: 0...4, using: &random)).map { _ in Self.random(depth: depth - 1, using: &random)
                    })
            default:
                // Keys come from a small pool, so duplicates happen.
                return .object(
                    (0..<Int.random(in: 0...4, using: &random)).map { _ in
                        (keyPool.randomElement(using: &random)!, Self.random(depth: depth - 1, using: &random))
                    })
            }
        }
    }

    /// A recursive model touching the decoder's fast paths and containers, for randomised round trips.
    struct Tree: Codable, Equatable {
        var name: String
        var id: Int
        var weight: Double?
        var flags: [Bool]
        var tags: [String]
        var numbers: [Int]
        var ratios: [Float]
        var when: Date?
        var blob: Data?
        var link: URL?
        var shape: Shape?
        var small: Int8?
        var big: UInt64?
        var children: [Tree]
        var lookup: [String: Tree]

        static func random(depth: Int, using random: inout SeededGenerator) -> Tree {
            func maybe<T>(_ make: () -> T) -> T? { Bool.random(using: &random) ? make() : nil }
            let strings = RawJSON.stringPool
            return Tree(
                name: strings.randomElement(using: &random)!,
                id: Int.random(in: Int.min...Int.max, using: &random),
                weight: maybe { Double(bitPattern: random.next() & 0x7FEF_FFFF_FFFF_FFFF) },
                flags: (0..<Int.random(in: 0...3, using: &random)).map { _ in Bool.random(using: &random) },
                tags: (0..<Int.random(in: 0...3, using: &random)).map { _ in strings.randomElement(using: &random)! },
                numbers: (0..<Int.random(in: 0...4, using: &random)).map { _ in
                    Int.random(in: -1000...1000, using: &random)
                },
                ratios: (0..<Int.random(in: 0...2, using: &random)).map { _ in Float.random(in: -1...1, using: &random)
                },
                when: maybe { Date(timeIntervalSinceReferenceDate: Double.random(in: -1e9...1e9, using: &random)) },
                blob: maybe { Data(random.bytes(Int.random(in: 0...10, using: &random))) },
                link: maybe { URL(string: "https://example.com/\(Int.random(in: 0...99, using: &random))")! },
                shape: maybe {
                    [Shape.empty, .circle(radius: 1.5), .label("l", bold: true)].randomElement(using: &random)!
                },
                small: maybe { Int8.random(in: .min ... .max, using: &random) },
                big: maybe { UInt64.random(in: .min ... .max, using: &random) },
                children: depth > 0
                    ? (0..<Int.random(in: 0...2, using: &random)).map { _ in .random(depth: depth - 1, using: &random) }
                    : [],
                lookup: depth > 0 && Bool.random(using: &random)
                    ? [RawJSON.keyPool.randomElement(using: &random)!: .random(depth: depth - 1, using: &random)] : [:]
            )
        }
    }
}
