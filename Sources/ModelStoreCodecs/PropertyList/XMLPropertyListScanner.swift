/// The XML half of ``PropertyListValidator``: one pass over the markup that counts how deep elements nest.
///
/// It is not an XML parser and does not check the property list's vocabulary; Foundation does that. It only needs
/// to see every element open and close as Foundation's parser will, so it skips what Foundation skips (comments,
/// processing instructions, CDATA sections, the document type declaration) exactly as far as Foundation does: a
/// tag or declaration ends at its first `>`, quotes or not. It rejects markup that never ends.
enum XMLPropertyListScanner {
    /// Element nesting allowed: the `<plist>` root and a scalar element (`<string>`, `<key>`, ...) around
    /// ``PropertyListValidator/maximumDepth`` arrays and dictionaries.
    static let maximumElementDepth = PropertyListValidator.maximumDepth + 2

    /// Whether `bytes` start, after an optional UTF-8 byte-order mark and whitespace, with markup.
    static func looksLikeXML(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let start = skipPreamble(bytes)
        return start < bytes.count && bytes[start] == UInt8(ascii: "<")
    }

    private static func skipPreamble(_ bytes: UnsafeRawBufferPointer) -> Int {
        var offset = 0
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { offset = 3 }
        while offset < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[offset]) { offset += 1 }
        return offset
    }

    static func scan(_ bytes: UnsafeRawBufferPointer) throws {
        // Whether each open element is an <array> or a <dict>; bounded by maximumElementDepth.
        var open: [Bool] = []
        var containers = 0
        var offset = skipPreamble(bytes)
        while offset < bytes.count {
            guard bytes[offset] == UInt8(ascii: "<") else {
                offset += 1
                continue
            }
            if has("<!--", in: bytes, at: offset) {
                offset = try end(of: "-->", in: bytes, after: offset + 4)
            } else if has("<![CDATA[", in: bytes, at: offset) {
                offset = try end(of: "]]>", in: bytes, after: offset + 9)
            } else if has("<?", in: bytes, at: offset) {
                offset = try end(of: "?>", in: bytes, after: offset + 2)
            } else if has("<!", in: bytes, at: offset) {
                offset = try endOfDeclaration(in: bytes, after: offset + 2)
            } else if has("</", in: bytes, at: offset) {
                // A stray closing tag is Foundation's error to report; it must not lower the count below zero.
                if let wasContainer = open.popLast(), wasContainer { containers -= 1 }
                offset = try endOfTag(in: bytes, after: offset + 2).next
            } else {
                let tag = try endOfTag(in: bytes, after: offset + 1)
                let isContainer = has("<array", in: bytes, at: offset) || has("<dict", in: bytes, at: offset)
                // An empty `<array/>` counts as a level too, though it closes at once.
                let depth = open.count + 1
                let containerDepth = containers + (isContainer ? 1 : 0)
                guard depth <= maximumElementDepth, containerDepth <= PropertyListValidator.maximumDepth else {
                    throw PropertyListProblem(
                        "elements nest deeper than \(PropertyListValidator.maximumDepth) arrays and dictionaries",
                        at: offset)
                }
                if !tag.selfClosing {
                    open.append(isContainer)
                    containers = containerDepth
                }
                offset = tag.next
            }
        }
    }

    private static func has(_ text: StaticString, in bytes: UnsafeRawBufferPointer, at offset: Int) -> Bool {
        let count = text.utf8CodeUnitCount
        guard bytes.count - offset >= count else { return false }
        for index in 0..<count where bytes[offset + index] != text.utf8Start[index] { return false }
        return true
    }

    /// The offset after the first `terminator` at or after `offset`.
    private static func end(
        of terminator: StaticString,
        in bytes: UnsafeRawBufferPointer,
        after offset: Int
    ) throws -> Int {
        var position = offset
        while position < bytes.count {
            if bytes[position] == terminator.utf8Start[0], has(terminator, in: bytes, at: position) {
                return position + terminator.utf8CodeUnitCount
            }
            position += 1
        }
        throw PropertyListProblem("markup that is never closed", at: offset)
    }

    /// The offset after a tag's first `>`, and whether it ended with `/>`.
    ///
    /// Quotes are not skipped: Foundation's scanner ends a tag at its first `>`, attribute values or not, so a quote
    /// skipped here would hide from this check the elements that Foundation then parses.
    private static func endOfTag(
        in bytes: UnsafeRawBufferPointer,
        after offset: Int
    ) throws -> (next: Int, selfClosing: Bool) {
        let next = try end(of: ">", in: bytes, after: offset)
        return (next, next - 2 >= offset && bytes[next - 2] == UInt8(ascii: "/"))
    }

    /// The offset after a `<!DOCTYPE ...>` declaration's first `>`.
    ///
    /// As in ``endOfTag(in:after:)``, neither quotes nor an internal subset (`[ ... ]`, which Foundation rejects)
    /// are skipped: Foundation ends the declaration at its first `>`.
    private static func endOfDeclaration(in bytes: UnsafeRawBufferPointer, after offset: Int) throws -> Int {
        try end(of: ">", in: bytes, after: offset)
    }
}
