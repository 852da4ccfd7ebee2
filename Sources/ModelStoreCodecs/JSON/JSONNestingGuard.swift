import Foundation

/// Checks a document's nesting before its bytes reach Foundation's `JSONDecoder`.
///
/// Foundation's parser recurses once per array or object and gives up after 512 levels, but documents cut at that
/// limit (513 `[`, say) crash the process inside Foundation instead of throwing. ModelStore's own scanner rejects
/// them without recursing, yet ``JSONModelCodec`` also hands documents to Foundation directly: with
/// ``JSONModelCodec/DecodingEngine/foundation``, with a `JSONDecoder` whose settings its decoder does not reproduce,
/// and for documents of 4 GiB or more. Each of those paths runs this check first.
///
/// The check is one pass over the bytes with no recursion and no allocation. It counts `[` and `{` outside strings
/// (and, for JSON5, outside single-quoted strings and comments), so it never counts fewer levels than a parser
/// would see; a document it rejects is one Foundation would reject (or crash on) as well. A document that may be
/// UTF-16 or UTF-32 is counted again in UTF-8, the text Foundation parses.
enum JSONNestingGuard {
    /// Foundation's limit: a 513th nested container is an error.
    static let maximumDepth = JSONScanner.maximumDepth

    /// Throws `DecodingError.dataCorrupted` if `bytes` nest more than ``maximumDepth`` arrays and objects.
    ///
    /// - Parameter allowsJSON5: Whether the decoder reads JSON5, whose comments and single-quoted strings may
    ///   hold brackets that are not structure.
    static func check(_ bytes: UnsafeRawBufferPointer, allowsJSON5: Bool) throws {
        if let offset = firstTooDeepOffset(bytes, allowsJSON5: allowsJSON5) {
            throw tooDeep(at: offset)
        }
        // Foundation reads UTF-16 and UTF-32 documents by converting them to UTF-8 first. Counted in their own
        // bytes, a character such as U+2200 (`00 22` in UTF-16LE) looks like a quote and hides every bracket after
        // it, so such a document is also checked as the UTF-8 text of each wide encoding it could be in.
        guard mayBeWide(bytes) else { return }
        for encoding in [String.Encoding.utf16LittleEndian, .utf16BigEndian, .utf32LittleEndian, .utf32BigEndian] {
            guard var text = String(bytes: bytes, encoding: encoding) else { continue }
            // Offsets in the converted text are not the document's, so the error names the start.
            if text.withUTF8({ firstTooDeepOffset(UnsafeRawBufferPointer($0), allowsJSON5: allowsJSON5) }) != nil {
                throw tooDeep(at: 0)
            }
        }
    }

    /// Whether Foundation might read `bytes` as UTF-16 or UTF-32: they start with a byte-order mark for one, or
    /// have a NUL among their first four bytes (which UTF-8 JSON never has: it starts with ASCII, and a raw NUL is
    /// invalid anywhere in it).
    private static func mayBeWide(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard bytes.count >= 2 else { return false }
        if (bytes[0] == 0xFE && bytes[1] == 0xFF) || (bytes[0] == 0xFF && bytes[1] == 0xFE) { return true }
        return bytes.prefix(4).contains(0)
    }

    /// The error for a document the codec will not hand to any parser.
    static func tooDeep(at offset: Int) -> DecodingError {
        .dataCorrupted(.init(
            codingPath: [],
            debugDescription: "The given data was not valid JSON: arrays and objects nest deeper than "
                + "\(maximumDepth) levels at byte \(offset)."
        ))
    }

    /// Where the first container past the limit opens, or nil if there is none.
    private static func firstTooDeepOffset(_ bytes: UnsafeRawBufferPointer, allowsJSON5: Bool) -> Int? {
        enum Mode { case structure, string(quote: UInt8), lineComment, blockComment }
        var mode = Mode.structure
        var depth = 0
        var offset = 0
        let count = bytes.count
        while offset < count {
            let byte = bytes[offset]
            switch mode {
            case .structure:
                switch byte {
                case UInt8(ascii: "["), UInt8(ascii: "{"):
                    depth += 1
                    if depth > maximumDepth { return offset }
                case UInt8(ascii: "]"), UInt8(ascii: "}"):
                    // A stray closer is a syntax error the parser reports; never let it lower the count below zero.
                    depth = max(0, depth - 1)
                case UInt8(ascii: "\""):
                    mode = .string(quote: byte)
                case UInt8(ascii: "'") where allowsJSON5:
                    mode = .string(quote: byte)
                case UInt8(ascii: "/") where allowsJSON5 && offset + 1 < count:
                    if bytes[offset + 1] == UInt8(ascii: "/") {
                        mode = .lineComment
                        offset += 1
                    } else if bytes[offset + 1] == UInt8(ascii: "*") {
                        mode = .blockComment
                        offset += 1
                    }
                default:
                    break
                }
            case .string(let quote):
                if byte == UInt8(ascii: "\\") {
                    offset += 1  // whatever is escaped cannot end the string
                } else if byte == quote {
                    mode = .structure
                }
            case .lineComment:
                // Parsers differ on which characters end a line comment (U+2028, say); counting its openers, and
                // never its closers, keeps the count an upper bound whichever way the comment really ends.
                if byte == UInt8(ascii: "[") || byte == UInt8(ascii: "{") {
                    depth += 1
                    if depth > maximumDepth { return offset }
                } else if byte == 0x0A || byte == 0x0D {
                    mode = .structure
                }
            case .blockComment:
                if byte == UInt8(ascii: "*"), offset + 1 < count, bytes[offset + 1] == UInt8(ascii: "/") {
                    mode = .structure
                    offset += 1
                }
            }
            offset += 1
        }
        return nil
    }
}
