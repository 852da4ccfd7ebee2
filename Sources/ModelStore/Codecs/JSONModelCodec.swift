public import Foundation

/// Stores models as JSON with Foundation's `JSONEncoder` and `JSONDecoder`. The default codec.
///
/// JSON is tolerant of model changes: unknown keys are ignored and missing optional
/// properties decode as nil. Pass your own coders to change date or key strategies:
///
/// ```swift
/// let encoder = JSONEncoder()
/// encoder.dateEncodingStrategy = .iso8601
/// let decoder = JSONDecoder()
/// decoder.dateDecodingStrategy = .iso8601
/// configuration.codec = JSONModelCodec(encoder: encoder, decoder: decoder)
/// ```
///
/// Changing strategies changes how new records are written; records already stored keep
/// the format they were written in, so keep the decoder able to read both.
public struct JSONModelCodec: ModelCodec {
    private let encoder: JSONEncoder
    private let decoder: JSONDecoder

    /// Creates a JSON codec. The coders are reused for every record and must not be mutated
    /// afterwards.
    public init(encoder: JSONEncoder = JSONEncoder(), decoder: JSONDecoder = JSONDecoder()) {
        self.encoder = encoder
        self.decoder = decoder
    }

    /// ``ModelCodecIdentifier/json``.
    public var identifier: ModelCodecIdentifier { .json }

    /// Encodes `value` as JSON.
    public func encode<Value: Encodable>(_ value: Value) throws -> Data {
        try encoder.encode(value)
    }

    /// Decodes a `type` from JSON.
    public func decode<Value: Decodable>(_ type: Value.Type, from data: Data) throws -> Value {
        try decoder.decode(type, from: data)
    }

    /// Decodes a `type` from JSON in borrowed memory, without copying it.
    public func decode<Value: Decodable>(
        _ type: Value.Type,
        fromBytes bytes: UnsafeRawBufferPointer
    ) throws -> Value {
        // JSONDecoder does not keep its input, so LevelDB's buffer is wrapped without a copy.
        guard let base = bytes.baseAddress, bytes.count > 0 else { return try decoder.decode(type, from: Data()) }
        let data = Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: base), count: bytes.count, deallocator: .none)
        return try decoder.decode(type, from: data)
    }
}

/// Stores models as binary property lists with Foundation's `PropertyListEncoder`.
///
/// Useful when records must be readable by tools that speak property lists. On Linux it is
/// slower and larger than JSON; prefer ``JSONModelCodec`` or ``BinaryModelCodec``.
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
    public func encode<Value: Encodable>(_ value: Value) throws -> Data {
        try encoder.encode(value)
    }

    /// Decodes a `type` from a property list.
    public func decode<Value: Decodable>(_ type: Value.Type, from data: Data) throws -> Value {
        try decoder.decode(type, from: data)
    }
}

/// The codecs ModelStore can always read, whatever codec a store is configured to write.
enum BuiltInCodecs {
    static let json = JSONModelCodec()
    static let propertyList = PropertyListModelCodec()
    static let binary = BinaryModelCodec()

    static func codec(for identifier: ModelCodecIdentifier) -> (any ModelCodec)? {
        switch identifier {
        case .json: return json
        case .propertyList: return propertyList
        case .binary: return binary
        default: return nil
        }
    }
}
