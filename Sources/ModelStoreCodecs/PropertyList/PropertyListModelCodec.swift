public import Foundation

/// Stores models as binary property lists with Foundation's `PropertyListEncoder`.
///
/// Useful when records must be readable by tools that speak property lists. On Linux it is
/// slower and larger than JSON; prefer ``JSONModelCodec`` or ``BinaryModelCodec``.
///
/// Foundation's property-list parsers recurse without limit and follow references without noticing cycles, so
/// every read checks the bytes first, in time linear in their length: they must be a binary (`bplist00`) or XML
/// property list, nest at most 512 arrays and dictionaries, and (binary) contain no object that contains itself and
/// no references or offsets outside the data. Anything else throws `DecodingError.dataCorrupted`. Writing, a model
/// that nests more than 512 values deep throws `EncodingError.invalidValue`, as with the other codecs.
public struct PropertyListModelCodec: ModelCodec {
    private let encoder: PropertyListEncoder
    private let decoder: PropertyListDecoder

    /// Creates a property-list codec writing the binary format.
    public init() {
        let encoder = PropertyListEncoder()
        encoder.outputFormat = .binary
        self.encoder = encoder
        decoder = PropertyListDecoder()
    }

    /// ``ModelCodecIdentifier/propertyList``.
    public var identifier: ModelCodecIdentifier { .propertyList }

    /// Encodes `value` as a binary property list.
    ///
    /// - Throws: `EncodingError.invalidValue` if `value` nests more than 512 levels deep (Foundation's encoder
    ///   would recurse until the stack overflows); otherwise what the `PropertyListEncoder` throws.
    public func encode<Value: Encodable>(_ value: Value) throws -> Data {
        try EncodingDepthProbe.check(value)
        return try encoder.encode(value)
    }

    /// Decodes a `type` from a property list.
    ///
    /// The bytes are checked first (see the type's documentation), so a damaged or hostile record throws instead
    /// of crashing Foundation's parser.
    ///
    /// - Throws: `DecodingError.dataCorrupted` for data that is not a binary or XML property list, nests more than
    ///   512 arrays and dictionaries, contains itself or is damaged; otherwise what the `PropertyListDecoder`
    ///   throws.
    public func decode<Value: Decodable>(_ type: Value.Type, from data: Data) throws -> Value {
        try PropertyListValidator.validate(data)
        return try decoder.decode(type, from: data)
    }
}
