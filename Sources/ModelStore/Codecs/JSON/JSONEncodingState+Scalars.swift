import Foundation

/// Writing scalars exactly as Foundation's `JSONEncoder` (its `JSONWriter`) spells them.
extension JSONEncodingState {
    /// Writes a string in quotes, escaping as Foundation does: `"` and `\` with a backslash, `/` as `\/`, the
    /// control characters `\b \f \n \r \t` by name and the other ones below U+0020 as `\u00xx` (lowercase hex).
    /// Everything else, non-ASCII included, is written as raw UTF-8.
    func writeString(_ string: String) {
        bytes.append(UInt8(ascii: "\""))
        var string = string
        string.withUTF8 { utf8 in
            var mark = 0
            for index in utf8.indices {
                let byte = utf8[index]
                guard byte < 0x20 || byte == 0x22 || byte == 0x5C || byte == 0x2F else { continue }
                if mark < index { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[mark..<index])) }
                writeEscape(byte)
                mark = index + 1
            }
            if mark < utf8.count { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[mark...])) }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private func writeEscape(_ byte: UInt8) {
        bytes.append(UInt8(ascii: "\\"))
        switch byte {
        case 0x22, 0x5C, 0x2F: bytes.append(byte)
        case 0x08: bytes.append(UInt8(ascii: "b"))
        case 0x0C: bytes.append(UInt8(ascii: "f"))
        case 0x0A: bytes.append(UInt8(ascii: "n"))
        case 0x0D: bytes.append(UInt8(ascii: "r"))
        case 0x09: bytes.append(UInt8(ascii: "t"))
        default:
            let hex: StaticString = "0123456789abcdef"
            bytes.append(contentsOf: [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
            bytes.append(hex.utf8Start[Int(byte >> 4)])
            bytes.append(hex.utf8Start[Int(byte & 0xF)])
        }
    }

    /// Writes an integer in decimal, as its `description` reads.
    func writeInteger<Integer: FixedWidthInteger>(_ value: Integer) {
        guard Integer.bitWidth <= 64 else {
            // Int128 and UInt128: rare enough for their own description.
            bytes.append(contentsOf: value.description.utf8)
            return
        }
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = UInt64(truncatingIfNeeded: value.magnitude)
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var start = digits.count
            repeat {
                start -= 1
                digits[start] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude % 10)
                magnitude /= 10
            } while magnitude != 0
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start...]))
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
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[..<count]))
        }
    }

    func writeBool(_ value: Bool) {
        if value {
            bytes.append(contentsOf: [UInt8(ascii: "t"), UInt8(ascii: "r"), UInt8(ascii: "u"), UInt8(ascii: "e")])
        } else {
            bytes.append(
                contentsOf: [UInt8(ascii: "f"), UInt8(ascii: "a"), UInt8(ascii: "l"), UInt8(ascii: "s"), UInt8(ascii: "e")]
            )
        }
    }

    func writeNull() {
        bytes.append(contentsOf: [UInt8(ascii: "n"), UInt8(ascii: "u"), UInt8(ascii: "l"), UInt8(ascii: "l")])
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
            bytes.append(contentsOf: decimal.description.utf8)
        } else {
            return false
        }
        return true
    }
}
