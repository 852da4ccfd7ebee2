import Foundation

/// Writing scalars exactly as Foundation's `JSONEncoder` (its `JSONWriter`) spells them.
extension JSONEncodingState {
    /// Writes a string in quotes, escaped as Foundation does (see ``JSONByteWriter/putQuoted(_:)``).
    func writeString(_ string: String) {
        output.putQuoted(string)
    }

    /// Writes an integer in decimal, as its `description` reads.
    func writeInteger<Integer: FixedWidthInteger>(_ value: Integer) {
        guard Integer.bitWidth <= 64 else {
            // Int128 and UInt128: rare enough for their own description.
            var text = value.description
            text.withUTF8 { output.put(UnsafeRawBufferPointer($0)) }
            return
        }
        writeDecimal(UInt64(truncatingIfNeeded: value.magnitude), negative: value < 0)
    }

    /// The non-generic part of ``writeInteger(_:)``, so that it runs specialized whatever the caller.
    private func writeDecimal(_ magnitude: UInt64, negative: Bool) {
        if negative { output.put(UInt8(ascii: "-")) }
        var magnitude = magnitude
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var start = digits.count
            repeat {
                start -= 1
                digits[start] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude % 10)
                magnitude /= 10
            } while magnitude != 0
            output.put(UnsafeRawBufferPointer(UnsafeMutableBufferPointer(rebasing: digits[start...])))
        }
    }

    /// Writes a float as Foundation does: its shortest round-tripping `description`, less a trailing `.0`.
    ///
    /// - Throws: For infinity and NaN, which Foundation's default strategy rejects with an error of its own.
    func writeFloat<Float: BinaryFloatingPoint & CustomStringConvertible>(_ value: Float) throws {
        guard value.isFinite else { throw fail() }
        var text = value.description
        text.withUTF8 { utf8 in
            var count = utf8.count
            if count > 2, utf8[count - 2] == UInt8(ascii: "."), utf8[count - 1] == UInt8(ascii: "0") { count -= 2 }
            output.put(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: utf8[..<count])))
        }
    }

    func writeBool(_ value: Bool) {
        output.put(value ? "true" : "false")
    }

    func writeNull() {
        output.put("null")
    }

    /// Writes the types Foundation special-cases (`Date`, `Data`, `URL`, `Decimal`) the way it does with default
    /// strategies, and common scalars without an encoder round trip (same bytes, less work).
    ///
    /// - Returns: Whether `value` was one of them and is written.
    func writeKnownValue<Value: Encodable>(_ value: Value) throws -> Bool {
        // Comparing metatypes is cheap; the casts only run once the type is known to match.
        if Value.self == String.self {
            writeString(unsafeBitCast(value, to: String.self))
        } else if Value.self == Int.self {
            writeInteger(unsafeBitCast(value, to: Int.self))
        } else if Value.self == Double.self {
            try writeFloat(unsafeBitCast(value, to: Double.self))
        } else if Value.self == Bool.self {
            writeBool(unsafeBitCast(value, to: Bool.self))
        } else if Value.self == Date.self {
            // `.deferredToDate`: Date's own Codable, a Double of seconds since 2001.
            try writeFloat(unsafeBitCast(value, to: Date.self).timeIntervalSinceReferenceDate)
        } else if Value.self == Data.self {
            writeString(unsafeBitCast(value, to: Data.self).base64EncodedString())
        } else if Value.self == URL.self {
            writeString(unsafeBitCast(value, to: URL.self).absoluteString)
        } else if Value.self == Decimal.self {
            let decimal = unsafeBitCast(value, to: Decimal.self)
            // Foundation writes NaN's description, which is not JSON; leave that to it.
            guard !decimal.isNaN else { throw fail() }
            var text = decimal.description
            text.withUTF8 { output.put(UnsafeRawBufferPointer($0)) }
        } else {
            return false
        }
        return true
    }
}
