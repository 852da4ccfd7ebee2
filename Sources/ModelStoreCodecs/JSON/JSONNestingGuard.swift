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
/// would see; a document it rejects is one Foundation would reject (or crash on) as well.
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
