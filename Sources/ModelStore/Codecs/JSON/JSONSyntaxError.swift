/// Why the scanner rejected a document, and where.
///
/// The fast decoder never reports these to users: ``JSONModelCodec`` decodes a rejected document again with
/// Foundation's `JSONDecoder`, whose error (or result, for the few inputs Foundation accepts and the scanner does
/// not, such as trailing commas) is what callers see.
struct JSONSyntaxError: Error, CustomStringConvertible {
    let reason: StaticString
    let offset: Int

    var description: String {
        "\(reason) at byte \(offset)"
    }
}
