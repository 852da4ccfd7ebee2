import Foundation

/// Turns validated number text into Swift numbers with the results Foundation's `JSONDecoder` gives, or reports a
/// case it leaves to Foundation.
///
/// Foundation parses integers digit by digit; text with a fraction or exponent (`1.0`, `1e2`) it reads as the
/// nearest Double, accepted when that is a whole number of the requested type below 2^53 (above that it consults
/// Decimal, a path left to Foundation here). Floating-point values are correctly rounded (Foundation uses `strtod`
/// and `strtof`), and a result that overflows to infinity or underflows to zero from non-zero digits is an error.
enum JSONNumberParser {
    /// 2^53: below it every integer is exactly a Double, and Foundation trusts the Double.
    private static let exactDoubleLimit: Double = 9_007_199_254_740_992

    // MARK: - Integers

    static func integer<T: FixedWidthInteger>(
        _: T.Type,
        _ text: UnsafeRawBufferPointer,
        isPlain: Bool
    ) throws(JSONValueError) -> T {
        if isPlain, let value: T = plainInteger(text) {
            return value
        }
        guard let double = nearestDouble(text) else { throw .needsFoundation }
        guard let value = T(exactly: double) else { throw .notRepresentable }
        guard double.magnitude < exactDoubleLimit else { throw .needsFoundation }
        return value
    }

    /// Parses `-?[0-9]+`; nil if the value does not fit in `T`. `-0` is 0, also for unsigned types.
    @inline(__always)
    static func plainInteger<T: FixedWidthInteger>(_ text: UnsafeRawBufferPointer) -> T? {
        let negative = text[0] == UInt8(ascii: "-")
        let first = negative ? 1 : 0
        let digits = text.count &- first
        // Up to 18 digits fit in Int64 with room to spare, so the common case needs no overflow checks.
        if digits <= 18 {
            var magnitude: Int64 = 0
            for index in first..<text.count {
                magnitude = magnitude &* 10 &+ Int64(text[index] &- UInt8(ascii: "0"))
            }
            return T(exactly: negative ? -magnitude : magnitude)
        }
        var value: T = 0
        for index in first..<text.count {
            let digit = T(text[index] &- UInt8(ascii: "0"))
            let (shifted, overflow) = value.multipliedReportingOverflow(by: 10)
            let (next, carry) = negative
                ? shifted.subtractingReportingOverflow(digit)
                : shifted.addingReportingOverflow(digit)
            guard !overflow, !carry else { return nil }
            value = next
        }
        return value
    }

    // MARK: - Floating point

    static func double(_ text: UnsafeRawBufferPointer) throws(JSONValueError) -> Double {
        let parts = DecimalParts(text)
        if parts.isZero {
            return parts.negative ? -0.0 : 0.0
        }
        if parts.isExact, parts.mantissa <= 1 << 53, parts.exponent >= -22, parts.exponent <= 22 {
            // Clinger's fast path: both operands are exact Doubles, so one correctly rounded operation gives the
            // correctly rounded result.
            return parts.applySign(scaled(Double(parts.mantissa), by: parts.exponent))
        }
        guard let value = Double(String(decoding: text, as: UTF8.self)) else { throw .needsFoundation }
        // Foundation rejects overflow to infinity and underflow to zero (the digits are not all zero here).
        guard value.isFinite, value != 0 else { throw .notRepresentable }
        return value
    }

    static func float(_ text: UnsafeRawBufferPointer) throws(JSONValueError) -> Float {
        let parts = DecimalParts(text)
        if parts.isZero {
            return parts.negative ? -0.0 : 0.0
        }
        if parts.isExact, parts.mantissa <= 1 << 24, parts.exponent >= -10, parts.exponent <= 10 {
            let power = Float(powersOfTen[abs(parts.exponent)])
            let mantissa = Float(parts.mantissa)
            return parts.applySign(parts.exponent < 0 ? mantissa / power : mantissa * power)
        }
        // Swift parses Float directly (as Foundation's strtof does); going through Double would round twice.
        guard let value = Float(String(decoding: text, as: UTF8.self)) else { throw .needsFoundation }
        guard value.isFinite, value != 0 else { throw .notRepresentable }
        return value
    }

    /// The Double nearest to `text`, with no overflow or underflow check: what Foundation's integer path uses.
    static func nearestDouble(_ text: UnsafeRawBufferPointer) -> Double? {
        let parts = DecimalParts(text)
        if parts.isZero {
            return parts.negative ? -0.0 : 0.0
        }
        if parts.isExact, parts.mantissa <= 1 << 53, parts.exponent >= -22, parts.exponent <= 22 {
            return parts.applySign(scaled(Double(parts.mantissa), by: parts.exponent))
        }
        return Double(String(decoding: text, as: UTF8.self))
    }

    @inline(__always)
    private static func scaled(_ mantissa: Double, by exponent: Int) -> Double {
        exponent < 0 ? mantissa / powersOfTen[-exponent] : mantissa * powersOfTen[exponent]
    }

    /// 10^0 ... 10^22, every one exactly representable as a Double.
    private static let powersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ]

    // MARK: - Decimal

    /// Foundation reads Decimal from the number's text with the parser `Decimal(string:)` uses, but requires it to
    /// consume the whole text, which `Decimal(string:)` does not check; a value that parser cannot hold (too large
    /// or too small) makes Foundation throw.
    static func decimal(_ text: UnsafeRawBufferPointer) throws(JSONValueError) -> Decimal {
        // Texts up to the length JSONEncoder writes for Decimal (its largest value has 166 digits) with short
        // exponents are read to the end; anything else is left to Foundation
        // rather than risk a partial parse passing for the whole.
        guard text.count <= 200, exponentDigits(text) <= 3 else { throw .needsFoundation }
        guard let value = Decimal(string: String(decoding: text, as: UTF8.self)), !value.isNaN else {
            throw .needsFoundation
        }
        return value
    }
}

/// How many digits the exponent of a validated number has (0 without one).
private func exponentDigits(_ text: UnsafeRawBufferPointer) -> Int {
    var digits = 0
    for byte in text.reversed() {
        if byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") { return digits }
        if byte &- UInt8(ascii: "0") < 10 { digits &+= 1 }
    }
    return 0
}

/// A validated JSON number split into sign, up to 19 significant digits and a power of ten.
private struct DecimalParts {
    var negative = false
    var mantissa: UInt64 = 0
    var exponent = 0
    /// False when the number has more than 19 significant digits, which the mantissa cannot hold.
    var isExact = true

    init(_ text: UnsafeRawBufferPointer) {
        var index = 0
        let count = text.count
        if text[0] == UInt8(ascii: "-") {
            negative = true
            index = 1
        }
        var significant = 0
        while index < count, case let digit = text[index] &- UInt8(ascii: "0"), digit < 10 {
            if mantissa != 0 || digit != 0 {
                if significant < 19 {
                    mantissa = mantissa &* 10 &+ UInt64(digit)
                    significant &+= 1
                } else {
                    isExact = false
                    exponent &+= 1
                }
            }
            index &+= 1
        }
        if index < count, text[index] == UInt8(ascii: ".") {
            index &+= 1
            while index < count, case let digit = text[index] &- UInt8(ascii: "0"), digit < 10 {
                if mantissa != 0 || digit != 0 {
                    if significant < 19 {
                        mantissa = mantissa &* 10 &+ UInt64(digit)
                        significant &+= 1
                        exponent &-= 1
                    } else {
                        isExact = false
                    }
                } else {
                    exponent &-= 1
                }
                index &+= 1
            }
        }
        if index < count {
            // The scanner allows only an exponent here.
            index &+= 1
            var negativeExponent = false
            if text[index] == UInt8(ascii: "-") || text[index] == UInt8(ascii: "+") {
                negativeExponent = text[index] == UInt8(ascii: "-")
                index &+= 1
            }
            var value = 0
            while index < count {
                // Saturate: anything this large over- or underflows every type anyway.
                value = Swift.min(value &* 10 &+ Int(text[index] &- UInt8(ascii: "0")), 1_000_000)
                index &+= 1
            }
            exponent &+= negativeExponent ? -value : value
        }
    }

    /// All digits are zero (a truncated mantissa always has a non-zero digit).
    var isZero: Bool { mantissa == 0 }

    @inline(__always)
    func applySign<F: FloatingPoint>(_ value: F) -> F {
        negative ? -value : value
    }
}
