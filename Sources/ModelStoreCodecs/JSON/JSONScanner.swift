/// The validating pass: reads a whole document once and records its structure on a ``JSONTape``.
///
/// The grammar is RFC 8259's, strictly: no trailing commas, no leading zeros, no control characters inside strings,
/// well-formed UTF-8 everywhere, escapes that name whole Unicode scalars, at most 512 nested containers. That is a
/// little stricter than Foundation's scanner, which accepts trailing commas and only checks strings and numbers that
/// are decoded; a document this scanner rejects goes to Foundation instead, so strictness costs speed on odd input,
/// never a different answer. It must never be laxer: whatever it accepts, Foundation accepts too.
///
/// The loop is iterative, with the chain of open containers threaded through their own tape entries, so hostile
/// nesting cannot exhaust the stack.
struct JSONScanner {
    /// Foundation's limit: a 513th nested container is an error.
    static let maximumDepth = 512

    let bytes: UnsafeRawPointer
    let length: Int
    var tape: JSONTape

    private init(_ buffer: UnsafeRawBufferPointer, tape: JSONTape) {
        // Callers pass a non-empty buffer.
        bytes = buffer.baseAddress.unsafelyUnwrapped
        length = buffer.count
        self.tape = tape
    }

    /// Validates `buffer` and returns its tape; the caller owns the tape and must deallocate it.
    ///
    /// - Throws: ``JSONSyntaxError`` if `buffer` is not one well-formed JSON value surrounded by optional whitespace.
    static func scan(_ buffer: UnsafeRawBufferPointer) throws(JSONSyntaxError) -> JSONTape {
        var tape = JSONTape(inputLength: buffer.count)
        do {
            try scan(buffer, into: &tape)
        } catch {
            tape.deallocate()
            throw error
        }
        return tape
    }

    /// Validates `buffer` and records its structure on `tape`, which is emptied first and keeps its memory: a
    /// decoding state reuses one tape for call after call (see ``JSONDecodingState/start(_:)``). Whatever happens,
    /// `tape` stays owned by the caller, allocated, and valid to reuse.
    ///
    /// - Throws: ``JSONSyntaxError`` if `buffer` is not one well-formed JSON value surrounded by optional whitespace.
    static func scan(_ buffer: UnsafeRawBufferPointer, into tape: inout JSONTape) throws(JSONSyntaxError) {
        tape.removeAll(inputLength: buffer.count)
        guard buffer.baseAddress != nil, buffer.count > 0 else {
            throw JSONSyntaxError(reason: "empty document", offset: 0)
        }
        var scanner = JSONScanner(buffer, tape: tape)
        // The scanner may grow the tape (a new allocation), so it is handed back whether or not the scan succeeds.
        defer { tape = scanner.tape }
        try scanner.scanDocument()
    }

    @inline(__always)
    func byte(_ offset: Int) -> UInt8 {
        bytes.load(fromByteOffset: offset, as: UInt8.self)
    }

    /// The offset of the first byte at or after `offset` that is not JSON whitespace (space, tab, CR, LF).
    @inline(__always)
    func skipWhitespace(_ offset: Int) -> Int {
        var offset = offset
        while offset < length {
            switch byte(offset) {
            case 0x20, 0x09, 0x0A, 0x0D: offset &+= 1
            default: return offset
            }
        }
        return offset
    }

    // MARK: - Structure

    private mutating func scanDocument() throws(JSONSyntaxError) {
        var position = skipWhitespace(0)
        // The innermost open container's tape index plus one; 0 at top level. Each open container keeps its
        // parent's link in its `end` field until it closes.
        var open = 0
        var depth = 0

        nextValue: while true {
            guard position < length else {
                throw JSONSyntaxError(reason: "unexpected end of document", offset: position)
            }
            switch byte(position) {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                let isObject = byte(position) == UInt8(ascii: "{")
                guard depth < JSONScanner.maximumDepth else {
                    throw JSONSyntaxError(reason: "too many nested containers", offset: position)
                }
                depth &+= 1
                let kind = isObject ? JSONKind.object : JSONKind.array
                let index = tape.append(JSONTapeEntry(tag: kind.rawValue, start: 0, end: UInt32(open), count: 0))
                open = index &+ 1
                position = skipWhitespace(position &+ 1)
                let closer = isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")
                if position < length && byte(position) == closer {
                    position &+= 1
                    open = close(index)
                    depth &-= 1
                } else if isObject {
                    position = try scanKey(at: position, object: index)
                    continue nextValue
                } else {
                    continue nextValue
                }
            case UInt8(ascii: "\""):
                position = try scanString(at: position)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                position = try scanNumber(at: position)
            case UInt8(ascii: "t"):
                position = try scanLiteral("true", kind: .true, at: position)
            case UInt8(ascii: "f"):
                position = try scanLiteral("false", kind: .false, at: position)
            case UInt8(ascii: "n"):
                position = try scanLiteral("null", kind: .null, at: position)
            default:
                throw JSONSyntaxError(reason: "unexpected character where a value should start", offset: position)
            }

            // A value is complete: continue its container, or close it and continue the one around it.
            while open != 0 {
                let container = open &- 1
                tape[container].count &+= 1
                position = skipWhitespace(position)
                guard position < length else {
                    throw JSONSyntaxError(reason: "unexpected end of document", offset: position)
                }
                let isObject = tape[container].kind == .object
                switch byte(position) {
                case UInt8(ascii: ","):
                    position = skipWhitespace(position &+ 1)
                    if isObject {
                        position = try scanKey(at: position, object: container)
                    }
                    continue nextValue
                case UInt8(ascii: "}") where isObject, UInt8(ascii: "]") where !isObject:
                    position &+= 1
                    open = close(container)
                    depth &-= 1
                default:
                    throw JSONSyntaxError(reason: "expected ',' or the end of the container", offset: position)
                }
            }
            break
        }

        guard skipWhitespace(position) == length else {
            throw JSONSyntaxError(reason: "unexpected data after the top-level value", offset: position)
        }
    }

    /// Records that the container at `index` ends here; returns the link to the container around it.
    private mutating func close(_ index: Int) -> Int {
        let parent = Int(tape[index].end)
        tape[index].end = UInt32(tape.count)
        // Lookups start with the first key; after that, each one hints at the key after the one it found.
        tape[index].start = UInt32(index &+ 1)
        return parent
    }

    private mutating func scanLiteral(
        _ literal: StaticString,
        kind: JSONKind,
        at position: Int
    ) throws(JSONSyntaxError) -> Int {
        let count = literal.utf8CodeUnitCount
        guard length &- position >= count else {
            throw JSONSyntaxError(reason: "truncated literal", offset: position)
        }
        let expected = literal.utf8Start
        for offset in 0..<count where byte(position &+ offset) != expected[offset] {
            throw JSONSyntaxError(reason: "invalid literal", offset: position &+ offset)
        }
        _ = tape.append(JSONTapeEntry(tag: kind.rawValue, start: UInt32(position), end: 0, count: 0))
        return position &+ count
    }
}
