/// Why the scanner rejected a document, and where.
///
/// ``JSONModelCodec`` reports it to callers as `DecodingError.dataCorrupted` and never hands the document to
/// Foundation's `JSONDecoder`: Foundation's parser crashes on some documents the scanner rejects (nesting cut at its
/// 512-level limit), so bytes the scanner refused are not parsed again by anything. Foundation would accept a few of
/// them (trailing commas, a byte-order mark); the codec's documentation lists these exceptions.
struct JSONSyntaxError: Error, CustomStringConvertible {
    let reason: StaticString
    let offset: Int

    var description: String {
        "\(reason) at byte \(offset)"
    }

    /// The error callers see, worded as Foundation's for invalid JSON, with the scanner's reason.
    var decodingError: DecodingError {
        .dataCorrupted(.init(codingPath: [], debugDescription: "The given data was not valid JSON: \(description)."))
    }
}
