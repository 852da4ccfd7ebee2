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
            guard let base = utf8.baseAddress else { return }
            let count = utf8.count
            var mark = 0
            var index = 0
            while index < count {
                // Most strings need no escape: skip eight clean bytes at a time.
                if index &+ 8 <= count, !Self.needsEscape(UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)) {
                    index &+= 8
                    continue
                }
                let byte = base[index]
                if byte < 0x20 || byte == 0x22 || byte == 0x5C || byte == 0x2F {
                    if mark < index { bytes.append(contentsOf: UnsafeBufferPointer(start: base + mark, count: index - mark)) }
                    writeEscape(byte)
                    mark = index &+ 1
                }
                index &+= 1
            }
            if mark < count { bytes.append(contentsOf: UnsafeBufferPointer(start: base + mark, count: count - mark)) }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// Whether any of the eight bytes in `word` is a control character, `"`, `\` or `/`.
    private static func needsEscape(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        // A byte below 0x20 borrows in `word - 0x20..`; a byte equal to c is zero in `word ^ c..`. Bytes of 0x80
        // and above are masked out with `~word`, so UTF-8 never counts.
        func zeroByte(_ value: UInt64) -> UInt64 { (value &- ones) & ~value & highs }
        let below = (word &- ones &* 0x20) & ~word & highs
        return (below | zeroByte(word ^ (ones &* 0x22)) | zeroByte(word ^ (ones &* 0x5C)) | zeroByte(word ^ (ones &* 0x2F))) != 0
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
        writeDecimal(UInt64(truncatingIfNeeded: value.magnitude), negative: value < 0)
    }

    /// The non-generic part of ``writeInteger(_:)``, so that it runs specialized whatever the caller.
    private func writeDecimal(_ magnitude: UInt64, negative: Bool) {
        if negative { bytes.append(UInt8(ascii: "-")) }
        var magnitude = magnitude
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
