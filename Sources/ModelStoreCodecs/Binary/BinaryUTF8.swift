/// UTF-8 validation for stored strings and keys.
///
/// Stored strings are validated rather than repaired, so a flipped bit inside a string is reported as corruption
/// instead of turning silently into a replacement character. `String(validating:as:)` would do this but needs
/// macOS 15 / iOS 18, and ModelStore supports older systems; it was also two to three times slower here (64 ns
/// against 22 ns for a 16-byte string) than this validator plus `String(decoding:as:)`, which then has nothing to
/// repair.
enum BinaryUTF8 {
    /// Whether `bytes` is well-formed UTF-8 as RFC 3629 defines it: no overlong forms, no surrogates, nothing above
    /// U+10FFFF, no truncated or stray continuation bytes.
    @inline(__always)
    static func isValid(_ bytes: UnsafeRawBufferPointer) -> Bool {
        isASCII(bytes) || isValidNonASCII(bytes)
    }

    /// Whether every byte is below 0x80: stored text nearly always is, and then it is valid UTF-8 without further
    /// checks. Reads whole words, the last one overlapping the one before, so no byte-by-byte tail loop is needed.
    @inline(__always)
    private static func isASCII(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let count = bytes.count
        var highBits: UInt64 = 0
        if count >= 8 {
            var index = 0
            while index &+ 8 <= count {
                highBits |= bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                index &+= 8
            }
            highBits |= bytes.loadUnaligned(fromByteOffset: count &- 8, as: UInt64.self)
        } else if count >= 4 {
            highBits = UInt64(
                bytes.loadUnaligned(as: UInt32.self) | bytes.loadUnaligned(fromByteOffset: count &- 4, as: UInt32.self)
            )
        } else {
            for index in 0..<count {
                highBits |= UInt64(bytes[index])
            }
        }
        return highBits & 0x8080_8080_8080_8080 == 0
    }

    @inline(never)
    private static func isValidNonASCII(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let count = bytes.count
        var index = 0
        while index < count {
            // Text is mostly ASCII: check 32 bytes at a time while it is, then eight.
            if count &- index >= 32 {
                let words = bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                    | bytes.loadUnaligned(fromByteOffset: index &+ 8, as: UInt64.self)
                    | bytes.loadUnaligned(fromByteOffset: index &+ 16, as: UInt64.self)
                    | bytes.loadUnaligned(fromByteOffset: index &+ 24, as: UInt64.self)
                if words & 0x8080_8080_8080_8080 == 0 {
                    index &+= 32
                    continue
                }
            }
            if count &- index >= 8,
                bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080 == 0
            {
                index &+= 8
                continue
            }
            let lead = bytes[index]
            if lead < 0x80 {
                index &+= 1
                continue
            }
            // The sequence length, and the range its second byte must fall in (narrower after E0, ED, F0 and F4,
            // which is what excludes overlong forms, surrogates and code points above U+10FFFF).
            let length: Int
            var lowest: UInt8 = 0x80
            var highest: UInt8 = 0xBF
            switch lead {
            case 0xC2...0xDF: length = 2
            case 0xE0: length = 3; lowest = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED: length = 3; highest = 0x9F
            case 0xF0: length = 4; lowest = 0x90
            case 0xF1...0xF3: length = 4
            case 0xF4: length = 4; highest = 0x8F
            default: return false
            }
            guard count &- index >= length else { return false }
            let second = bytes[index &+ 1]
            guard second >= lowest, second <= highest else { return false }
            var offset = 2
            while offset < length {
                guard bytes[index &+ offset] & 0xC0 == 0x80 else { return false }
                offset &+= 1
            }
            index &+= length
        }
        return true
    }
}
