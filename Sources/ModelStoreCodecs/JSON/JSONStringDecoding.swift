import Foundation

extension JSONDecodingState {
    /// The String a string entry (value or key) holds.
    ///
    /// The scanner validated the bytes, so `String(decoding:as:)` has nothing to repair and builds the same String
    /// Foundation's validating initializer would.
    @inline(__always)
    func string(of entry: JSONTapeEntry) -> String {
        let text = text(of: entry)
        guard entry.has(JSONTapeEntry.Flags.escaped) else {
            return String(decoding: text, as: UTF8.self)
        }
        return JSONStringDecoding.unescape(text)
    }
}

/// Turns the contents of a JSON string with escapes into a String.
enum JSONStringDecoding {
    /// Decodes `text`, a string's contents between its quotes, which the scanner has validated: every escape is
    /// complete and `\u` escapes name Unicode scalars (surrogates come in high-low pairs).
    static func unescape(_ text: UnsafeRawBufferPointer) -> String {
        // Every escape is at least as long as what it stands for (`\n` is 2 bytes for 1, `\uXXXX` 6 for at most 3,
        // a surrogate pair 12 for 4), so the result fits in the input's length.
        String(unsafeUninitializedCapacity: text.count) { output in
            // An escaped string is not empty: it holds at least its escape.
            let input = text.baseAddress.unsafelyUnwrapped
            let target = UnsafeMutableRawPointer(output.baseAddress.unsafelyUnwrapped)
            let count = text.count
            var read = 0
            var written = 0
            while read < count {
                // The plain bytes up to the next escape are found with memchr and copied in one go: a byte-by-byte
                // copy was the largest single cost in a profile of decoding a small document (a quoted ETag).
                let rest = count &- read
                let run: Int
                if let backslash = memchr(input + read, Int32(UInt8(ascii: "\\")), rest) {
                    run = UnsafeRawPointer(backslash) - (input + read)
                } else {
                    run = rest
                }
                if run > 0 {
                    (target + written).copyMemory(from: input + read, byteCount: run)
                    written &+= run
                    read &+= run
                    if read == count { break }
                }
                let escape = text[read &+ 1]
                read &+= 2
                let replacement: UInt8
                switch escape {
                case UInt8(ascii: "b"): replacement = 0x08
                case UInt8(ascii: "f"): replacement = 0x0C
                case UInt8(ascii: "n"): replacement = 0x0A
                case UInt8(ascii: "r"): replacement = 0x0D
                case UInt8(ascii: "t"): replacement = 0x09
                case UInt8(ascii: "u"):
                    var scalar = UInt32(hexCodeUnit(text, at: read))
                    read &+= 4
                    if scalar >= 0xD800 && scalar < 0xDC00 {
                        // The scanner checked that `\u` and a low surrogate follow.
                        let low = UInt32(hexCodeUnit(text, at: read &+ 2))
                        read &+= 6
                        scalar = 0x10000 &+ (scalar &- 0xD800) &<< 10 &+ (low &- 0xDC00)
                    }
                    written = encode(scalar, into: output, at: written)
                    continue
                default:
                    // `"`, `\` and `/` stand for themselves.
                    replacement = escape
                }
                output[written] = replacement
                written &+= 1
            }
            return written
        }
    }

    /// The four validated hex digits at `offset`.
    private static func hexCodeUnit(_ text: UnsafeRawBufferPointer, at offset: Int) -> UInt16 {
        var unit: UInt16 = 0
        for index in offset..<offset &+ 4 {
            let byte = text[index]
            let digit = byte <= UInt8(ascii: "9") ? byte &- UInt8(ascii: "0") : (byte | 0x20) &- UInt8(ascii: "a") &+ 10
            unit = unit &<< 4 | UInt16(digit)
        }
        return unit
    }

    /// Writes `scalar` (a valid Unicode scalar value) as UTF-8; returns the new write offset.
    private static func encode(
        _ scalar: UInt32,
        into output: UnsafeMutableBufferPointer<UInt8>,
        at offset: Int
    ) -> Int {
        switch scalar {
        case 0..<0x80:
            output[offset] = UInt8(scalar)
            return offset &+ 1
        case 0x80..<0x800:
            output[offset] = UInt8(0xC0 | scalar &>> 6)
            output[offset &+ 1] = UInt8(0x80 | scalar & 0x3F)
            return offset &+ 2
        case 0x800..<0x10000:
            output[offset] = UInt8(0xE0 | scalar &>> 12)
            output[offset &+ 1] = UInt8(0x80 | scalar &>> 6 & 0x3F)
            output[offset &+ 2] = UInt8(0x80 | scalar & 0x3F)
            return offset &+ 3
        default:
            output[offset] = UInt8(0xF0 | scalar &>> 18)
            output[offset &+ 1] = UInt8(0x80 | scalar &>> 12 & 0x3F)
            output[offset &+ 2] = UInt8(0x80 | scalar &>> 6 & 0x3F)
            output[offset &+ 3] = UInt8(0x80 | scalar & 0x3F)
            return offset &+ 4
        }
    }
}
