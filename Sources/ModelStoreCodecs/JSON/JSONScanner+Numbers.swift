extension JSONScanner {
    /// Scans the number starting at `position` (a minus sign or a digit); returns the offset after it.
    ///
    /// The grammar is RFC 8259's: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`. The byte after the
    /// number is checked by the caller, which accepts only whitespace, `,`, `]`, `}` or the end, so `01`, `1.2.3`
    /// or `1x` are rejected there.
    mutating func scanNumber(at position: Int) throws(JSONSyntaxError) -> Int {
        var offset = position
        if byte(offset) == UInt8(ascii: "-") {
            offset &+= 1
        }
        guard offset < length, isDigit(byte(offset)) else {
            throw JSONSyntaxError(reason: "expected a digit", offset: offset)
        }
        if byte(offset) == UInt8(ascii: "0") {
            offset &+= 1
        } else {
            offset = skipDigits(offset &+ 1)
        }
        var flags = JSONTapeEntry.Flags.plainInteger
        if offset < length && byte(offset) == UInt8(ascii: ".") {
            flags = 0
            offset &+= 1
            guard offset < length, isDigit(byte(offset)) else {
                throw JSONSyntaxError(reason: "expected a digit after the decimal point", offset: offset)
            }
            offset = skipDigits(offset &+ 1)
        }
        if offset < length && (byte(offset) | 0x20) == UInt8(ascii: "e") {
            flags = 0
            offset &+= 1
            if offset < length && (byte(offset) == UInt8(ascii: "+") || byte(offset) == UInt8(ascii: "-")) {
                offset &+= 1
            }
            guard offset < length, isDigit(byte(offset)) else {
                throw JSONSyntaxError(reason: "expected a digit in the exponent", offset: offset)
            }
            offset = skipDigits(offset &+ 1)
        }
        let tag = JSONKind.number.rawValue | flags
        _ = tape.append(JSONTapeEntry(tag: tag, start: UInt32(position), end: UInt32(offset), count: 0))
        return offset
    }

    @inline(__always)
    private func isDigit(_ byte: UInt8) -> Bool {
        byte &- UInt8(ascii: "0") < 10
    }

    @inline(__always)
    private func skipDigits(_ offset: Int) -> Int {
        var offset = offset
        while offset < length && isDigit(byte(offset)) {
            offset &+= 1
        }
        return offset
    }
}
