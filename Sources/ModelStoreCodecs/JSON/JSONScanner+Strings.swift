extension JSONScanner {
    /// Scans the string value whose opening quote is at `position`; returns the offset after its closing quote.
    mutating func scanString(at position: Int) throws(JSONSyntaxError) -> Int {
        let (end, flags) = try scanStringBody(at: position)
        let tag = JSONKind.string.rawValue | flags
        _ = tape.append(JSONTapeEntry(tag: tag, start: UInt32(position &+ 1), end: UInt32(end), count: 0))
        return end &+ 1
    }

    /// Finds the closing quote of the string whose opening quote is at `quote`, validating everything in between.
    ///
    /// - Returns: The closing quote's offset, and the ``JSONTapeEntry/Flags`` (escaped, non-ASCII) that apply.
    @inline(__always)
    func scanStringBody(at quote: Int) throws(JSONSyntaxError) -> (end: Int, flags: UInt32) {
        var offset = quote &+ 1
        var flags: UInt32 = 0
        while true {
            // Eight bytes at a time while none of them needs a closer look.
            while true {
                let remaining = length &- offset
                if remaining >= 8 {
                    let word = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
                    let special = JSONScanner.specialBytes(in: word)
                    if special == 0 {
                        offset &+= 8
                        continue
                    }
                    offset &+= special.trailingZeroBitCount &>> 3
                } else if remaining > 0 && length >= 8 {
                    // The document's last few bytes (where a small document's last string ends): the eight bytes
                    // that end the document, shifted so that the first is at `offset`. The shift brings zeros in
                    // at the top, which would read as control characters, so only the bytes still in the
                    // document count.
                    let word = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: length &- 8, as: UInt64.self))
                    let inDocument: UInt64 = (1 &<< UInt64(remaining &* 8)) &- 1
                    let special = JSONScanner.specialBytes(in: word &>> UInt64((8 &- remaining) &* 8)) & inDocument
                    offset &+= special == 0 ? remaining : special.trailingZeroBitCount &>> 3
                }
                break
            }
            guard offset < length else {
                throw JSONSyntaxError(reason: "unterminated string", offset: quote)
            }
            let byte = self.byte(offset)
            switch byte {
            case UInt8(ascii: "\""):
                return (offset, flags)
            case UInt8(ascii: "\\"):
                flags |= JSONTapeEntry.Flags.escaped
                offset = try scanEscape(at: offset)
            case 0..<0x20:
                throw JSONSyntaxError(reason: "unescaped control character in string", offset: offset)
            case 0x80...:
                flags |= JSONTapeEntry.Flags.nonASCII
                offset = try scanUTF8Sequence(at: offset)
            default:
                offset &+= 1
            }
        }
    }

    /// A word whose high bit is set in each byte that is a quote, a backslash, a control character or not ASCII.
    ///
    /// Borrows can set high bits above a match, never below one, so the lowest set bit always marks a real match.
    @inline(__always)
    static func specialBytes(in word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let quotes = word ^ (ones &* 0x22)
        let backslashes = word ^ (ones &* 0x5C)
        let isQuote = (quotes &- ones) & ~quotes
        let isBackslash = (backslashes &- ones) & ~backslashes
        let isControl = (word &- ones &* 0x20) & ~word
        return (isQuote | isBackslash | isControl | word) & (ones &* 0x80)
    }

    /// Validates the escape whose backslash is at `offset`; returns the offset after it.
    ///
    /// `\u` escapes must name a Unicode scalar: a high surrogate must be followed by an escaped low surrogate, and a
    /// low surrogate may not stand alone. Foundation throws on both when it decodes the string.
    private func scanEscape(at offset: Int) throws(JSONSyntaxError) -> Int {
        guard length &- offset >= 2 else { throw JSONSyntaxError(reason: "unterminated string", offset: offset) }
        switch byte(offset &+ 1) {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
            UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            return offset &+ 2
        case UInt8(ascii: "u"):
            let unit = try hexCodeUnit(at: offset &+ 2)
            switch unit {
            case 0xD800...0xDBFF:
                guard length &- offset >= 12, byte(offset &+ 6) == UInt8(ascii: "\\"),
                    byte(offset &+ 7) == UInt8(ascii: "u"),
                    case 0xDC00...0xDFFF = try hexCodeUnit(at: offset &+ 8)
                else {
                    throw JSONSyntaxError(reason: "high surrogate without a low surrogate", offset: offset)
                }
                return offset &+ 12
            case 0xDC00...0xDFFF:
                throw JSONSyntaxError(reason: "low surrogate without a high surrogate", offset: offset)
            default:
                return offset &+ 6
            }
        default:
            throw JSONSyntaxError(reason: "invalid escape", offset: offset)
        }
    }

    /// The four hex digits at `offset` as a UTF-16 code unit.
    func hexCodeUnit(at offset: Int) throws(JSONSyntaxError) -> UInt16 {
        guard length &- offset >= 4 else { throw JSONSyntaxError(reason: "truncated \\u escape", offset: offset) }
        var unit: UInt16 = 0
        for index in offset..<offset &+ 4 {
            let digit: UInt8
            switch byte(index) {
            case let byte where byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"): digit = byte &- 0x30
            case let byte where byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "f"): digit = byte &- 0x57
            case let byte where byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "F"): digit = byte &- 0x37
            default: throw JSONSyntaxError(reason: "invalid hex digit in \\u escape", offset: index)
            }
            unit = unit &<< 4 | UInt16(digit)
        }
        return unit
    }

    /// Validates the multi-byte UTF-8 sequence whose lead byte is at `offset`; returns the offset after it.
    ///
    /// Well-formed means what Swift's own validation means (RFC 3629): no overlong forms, no surrogates, nothing
    /// above U+10FFFF, no stray or missing continuation bytes. Foundation throws on anything else when it builds a
    /// String, so accepting it here could turn Foundation's error into a value.
    private func scanUTF8Sequence(at offset: Int) throws(JSONSyntaxError) -> Int {
        let lead = byte(offset)
        // The sequence length, and the range its second byte must fall in: narrower after E0, ED, F0 and F4, which
        // is what excludes overlong forms, surrogates and code points above U+10FFFF.
        let sequenceLength: Int
        var lowest: UInt8 = 0x80
        var highest: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: sequenceLength = 2
        case 0xE0: sequenceLength = 3; lowest = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: sequenceLength = 3
        case 0xED: sequenceLength = 3; highest = 0x9F
        case 0xF0: sequenceLength = 4; lowest = 0x90
        case 0xF1...0xF3: sequenceLength = 4
        case 0xF4: sequenceLength = 4; highest = 0x8F
        default: throw JSONSyntaxError(reason: "invalid UTF-8 lead byte", offset: offset)
        }
        guard length &- offset >= sequenceLength else {
            throw JSONSyntaxError(reason: "truncated UTF-8 sequence", offset: offset)
        }
        let second = byte(offset &+ 1)
        guard second >= lowest, second <= highest else {
            throw JSONSyntaxError(reason: "invalid UTF-8 sequence", offset: offset)
        }
        var index = 2
        while index < sequenceLength {
            guard byte(offset &+ index) & 0xC0 == 0x80 else {
                throw JSONSyntaxError(reason: "invalid UTF-8 continuation byte", offset: offset &+ index)
            }
            index &+= 1
        }
        return offset &+ sequenceLength
    }
}
