/// Why a read from a payload failed, before the decoder knows the coding path to report it with.
///
/// The reader throws this small value (typed throws, so nothing is boxed) and the decoding containers turn it into
/// a `DecodingError` that carries their coding path.
enum BinaryReadError: Error {
    /// The payload ended, or a length pointed past the end of its container.
    case truncated(at: Int)
    /// The bytes cannot be a value in this format (unknown tag, overlong varint, bad UTF-8, bad count, ...).
    case malformed(String, at: Int)
    /// A well-formed value of another kind than the one requested; `found` is its tag.
    case mismatch(found: UInt8, at: Int)
    /// A number that cannot be represented exactly in the requested type.
    case notRepresentable(String, at: Int)
    /// Values nest deeper than ``BinaryFormat/maximumDepth``.
    case tooDeep(at: Int)

    /// The `DecodingError` to throw for this failure while decoding `type` at `codingPath`.
    func decodingError(_ type: Any.Type, codingPath: [any CodingKey]) -> DecodingError {
        switch self {
        case .truncated(let offset):
            return .dataCorrupted(.init(
                codingPath: codingPath,
                debugDescription: "Binary data ends unexpectedly at byte \(offset) while reading \(type)."
            ))
        case .malformed(let message, let offset):
            return .dataCorrupted(.init(
                codingPath: codingPath,
                debugDescription: "Binary data is corrupted at byte \(offset): \(message)."
            ))
        case .mismatch(let tag, let offset) where tag == BinaryFormat.Tag.null:
            return .valueNotFound(type, .init(
                codingPath: codingPath,
                debugDescription: "Expected \(type) but found nil at byte \(offset)."
            ))
        case .mismatch(let tag, let offset):
            return .typeMismatch(type, .init(
                codingPath: codingPath,
                debugDescription: "Expected \(type) but found \(BinaryFormat.Tag.name(tag)) at byte \(offset)."
            ))
        case .notRepresentable(let number, let offset):
            return .dataCorrupted(.init(
                codingPath: codingPath,
                debugDescription: "Stored number \(number) at byte \(offset) does not fit in \(type)."
            ))
        case .tooDeep(let offset):
            return .dataCorrupted(.init(
                codingPath: codingPath,
                debugDescription: "Values nest deeper than \(BinaryFormat.maximumDepth) levels at byte \(offset)."
            ))
        }
    }
}
