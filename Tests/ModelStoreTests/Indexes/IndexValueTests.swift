import Foundation
import Testing
@testable import ModelStore
import ModelStoreTestSupport

@Suite("Indexes: value order and encoding")
struct IndexValueTests {
    /// The natural order the encoding must keep, within a kind; kinds in their fixed order.
    static func naturallyBefore(_ a: IndexValue, _ b: IndexValue) -> Bool {
        func rank(_ value: IndexValue) -> Int {
            switch value {
            case .bool: 0
            case .int: 1
            case .double: 2
            case .date: 3
            case .string: 4
            }
        }
        switch (a, b) {
        case let (.bool(x), .bool(y)): return !x && y
        case let (.int(x), .int(y)): return x < y
        case let (.double(x), .double(y)): return numericallyBefore(x, y)
        case let (.date(x), .date(y)):
            return numericallyBefore(x.timeIntervalSinceReferenceDate, y.timeIntervalSinceReferenceDate)
        case let (.string(x), .string(y)): return Array(x.utf8).lexicographicallyPrecedes(Array(y.utf8))
        default: return rank(a) < rank(b)
        }
    }

    /// Numbers numerically; NaN after everything, one NaN; -0 equals 0.
    static func numericallyBefore(_ x: Double, _ y: Double) -> Bool {
        if x.isNaN { return false }
        if y.isNaN { return true }
        return x < y
    }

    static func randomValue(_ generator: inout SeededGenerator) -> IndexValue {
        switch Int.random(in: 0..<5, using: &generator) {
        case 0: return .bool(Bool.random(using: &generator))
        case 1:
            let extremes: [Int64] = [.min, .min + 1, -1, 0, 1, .max - 1, .max]
            return .int(Bool.random(using: &generator)
                ? extremes.randomElement(using: &generator)! : Int64.random(in: -1_000...1_000, using: &generator))
        case 2: return .double(randomDouble(&generator))
        case 3: return .date(Date(timeIntervalSinceReferenceDate: randomDouble(&generator)))
        default:
            let alphabet: [String] = ["", "a", "b", "\u{0}", "\u{1}", "\u{7F}", "\u{E9}", "e\u{301}", "\u{FFFF}", "😀", "\u{FF}"]
            let count = Int.random(in: 0...4, using: &generator)
            return .string((0..<count).map { _ in alphabet.randomElement(using: &generator)! }.joined())
        }
    }

    static func randomDouble(_ generator: inout SeededGenerator) -> Double {
        let special: [Double] = [
            0, -0.0, 1, -1, .infinity, -.infinity, .nan, .leastNonzeroMagnitude, -.leastNonzeroMagnitude,
            .greatestFiniteMagnitude, -.greatestFiniteMagnitude, .ulpOfOne,
        ]
        return Bool.random(using: &generator)
            ? special.randomElement(using: &generator)! : Double.random(in: -1e6...1e6, using: &generator)
    }

    @Test("The encoding's byte order is the natural order, for 20,000 random pairs of every kind")
    func orderIsPreserved() {
        var generator = SeededGenerator(seed: 26)
        for _ in 0..<20_000 {
            let a = Self.randomValue(&generator)
            let b = Self.randomValue(&generator)
            #expect(a.encoded.lexicographicallyPrecedes(b.encoded) == Self.naturallyBefore(a, b), "\(a) vs \(b)")
            #expect((a < b) == Self.naturallyBefore(a, b))
            #expect((a == b) == (!Self.naturallyBefore(a, b) && !Self.naturallyBefore(b, a)))
            if a == b { #expect(a.hashValue == b.hashValue) }
        }
    }

    @Test("Every encoding decodes back, delimits itself, and is a prefix of no other")
    func roundTripAndDelimiting() {
        var generator = SeededGenerator(seed: 2026)
        for _ in 0..<5_000 {
            let value = Self.randomValue(&generator)
            let other = Self.randomValue(&generator)
            let encoded = value.encoded
            #expect(IndexValue.decode(encoded) == value)
            // Followed by anything (a record key), the encoding's length is still found.
            let followed = encoded + other.encoded + [0x00, 0xFF, 0x41]
            #expect(followed.withUnsafeBytes { IndexValue.encodedLength(in: $0, at: 0) } == encoded.count)
            if value != other { #expect(!other.encoded.starts(with: encoded)) }
        }
    }

    @Test("Edge cases: negatives before positives, -0 is 0, one NaN after infinity, NUL in strings")
    func edges() {
        #expect(IndexValue.int(-1) < .int(0))
        #expect(IndexValue.int(.min) < .int(.max))
        #expect(IndexValue.double(-0.0) == .double(0))
        #expect(IndexValue.double(.infinity) < .double(.nan))
        #expect(IndexValue.double(.nan) == .double(-Double.nan))
        #expect(IndexValue.double(-.infinity) < .double(-.greatestFiniteMagnitude))
        #expect(IndexValue.date(.distantPast) < .date(.distantFuture))
        #expect(IndexValue.string("a") < .string("a\u{0}"))
        #expect(IndexValue.string("a\u{0}") < .string("a\u{1}"))
        #expect(IndexValue.string("a\u{0}b") < .string("ab"))
        #expect(IndexValue.string("z") < .string("\u{E9}"))
        #expect(IndexValue.bool(true) < .int(.min))
        #expect(IndexValue.int(.max) < .double(-.infinity))
        #expect(IndexValue.date(.distantFuture) < .string(""))
        #expect(IndexValue.decode([0x05, 0x61, 0x00]) == nil)
        #expect(IndexValue.decode([0x09]) == nil)
        #expect(IndexValue.decode([0x01, 0x02]) == nil)
    }
}
