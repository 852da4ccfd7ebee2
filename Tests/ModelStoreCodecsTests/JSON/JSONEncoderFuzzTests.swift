import Foundation
import Testing
@testable import ModelStoreCodecs
import ModelStoreTestSupport

extension JSONCodecTests {
    /// Seeded random values: the fast encoder writes what Foundation writes, and both decoders read it back.
    @Suite("JSON encoder: randomised against JSONEncoder")
    struct EncoderFuzz {
        /// A random string from any code points, control characters and escapes weighted up.
        static func randomString(using random: inout SeededGenerator) -> String {
            let pieces: [ClosedRange<UInt32>] = [0...0x1F, 0x20...0x7F, 0x80...0x7FF, 0x800...0xD7FF, 0x1_0000...0x10_FFFF]
            var scalars = String.UnicodeScalarView()
            for _ in 0..<Int.random(in: 0...12, using: &random) {
                if Int.random(in: 0..<6, using: &random) == 0 {
                    scalars.append(["\"", "\\", "/"].randomElement(using: &random)!)
                    continue
                }
                let range = pieces.randomElement(using: &random)!
                scalars.append(Unicode.Scalar(UInt32.random(in: range, using: &random))!)
            }
            return String(scalars)
        }

        static func randomValue(depth: Int, using random: inout SeededGenerator) -> JSONValue {
            switch Int.random(in: 0..<(depth > 0 ? 7 : 5), using: &random) {
            case 0: return [.null, .bool(true), .bool(false)].randomElement(using: &random)!
            case 1:
                var number = Double(bitPattern: random.next())
                while !number.isFinite { number = Double(bitPattern: random.next()) }
                return .number(number)
            case 2: return .number(Double(Int.random(in: -1_000_000...1_000_000, using: &random)))
            case 3, 4: return .string(randomString(using: &random))
            case 5:
                return .array((0..<Int.random(in: 0...4, using: &random)).map { _ in randomValue(depth: depth - 1, using: &random) })
            default:
                var object: [String: JSONValue] = [:]
                for _ in 0..<Int.random(in: 0...4, using: &random) {
                    object[randomString(using: &random)] = randomValue(depth: depth - 1, using: &random)
                }
                return .object(object)
            }
        }

        @Test func randomJSONValuesEncodeLikeFoundation() {
            var random = SeededGenerator(seed: 0xE2C0DE)
            for _ in 0..<300 {
                expectEncodesLikeFoundation(Self.randomValue(depth: 4, using: &random))
            }
        }

        @Test(.long) func randomModelsEncodeLikeFoundationAndReadBack() {
            var random = SeededGenerator(seed: 0x5EED)
            for _ in 0..<150 {
                expectEncodesLikeFoundation(Tree.random(depth: 3, using: &random))
            }
        }

        @Test func randomIntegersAndStringsInKeyedContainersEncodeLikeFoundation() {
            var random = SeededGenerator(seed: 0xB0B)
            for _ in 0..<300 {
                let value = Scalars(
                    string: Self.randomString(using: &random),
                    double: Double(bitPattern: random.next() & 0x7FEF_FFFF_FFFF_FFFF),
                    float: Float(bitPattern: UInt32(truncatingIfNeeded: random.next()) & 0x7F7F_FFFF),
                    int: Int(truncatingIfNeeded: random.next()),
                    int8: Int8(truncatingIfNeeded: random.next()),
                    int16: Int16(truncatingIfNeeded: random.next()),
                    int32: Int32(truncatingIfNeeded: random.next()),
                    int64: Int64(truncatingIfNeeded: random.next()),
                    uint: UInt(truncatingIfNeeded: random.next()),
                    date: Date(timeIntervalSinceReferenceDate: Double(bitPattern: random.next() & 0x41EF_FFFF_FFFF_FFFF)),
                    data: Data(random.bytes(Int.random(in: 0...20, using: &random)))
                )
                expectEncodesLikeFoundation(value)
            }
        }
    }
}
