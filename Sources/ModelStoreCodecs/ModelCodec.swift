public import Foundation

/// Turns models into bytes and back for storage.
///
/// ModelStore ships ``JSONModelCodec`` (the default), ``PropertyListModelCodec`` and
/// ``BinaryModelCodec``. Supply your own by conforming to this protocol and giving it an
/// ``identifier`` of your own (``ModelCodecIdentifier/custom(_:)``).
///
/// Every record stores the identifier of the codec that wrote it, so a store opened with a
/// different built-in codec still reads records written by another built-in codec.
///
/// Conforming types must be safe to call from many threads at once.
public protocol ModelCodec: Sendable {
    /// The identifier written into every record this codec encodes.
    var identifier: ModelCodecIdentifier { get }

    /// Encodes a model.
    ///
    /// - Throws: Any error the underlying encoder throws.
    func encode<Value: Encodable>(_ value: Value) throws -> Data

    /// Decodes a model.
    ///
    /// - Throws: Any error the underlying decoder throws.
    func decode<Value: Decodable>(_ type: Value.Type, from data: Data) throws -> Value

    /// Encodes a model by appending its bytes to `buffer`.
    ///
    /// ModelStore calls this on its write path so that a record's header and payload share
    /// one buffer. The default implementation calls ``encode(_:)`` and appends the result;
    /// override it when your encoder can write into the buffer directly.
    func encode<Value: Encodable>(_ value: Value, appendingTo buffer: inout [UInt8]) throws

    /// Encodes two values, one after the other, by appending their bytes to `buffer`, and returns
    /// where the second one's bytes start: an index into the whole `buffer`, not counted from
    /// where this call began appending. A store refuses a write whose codec returns an index
    /// outside the bytes it appended, with `ModelStoreError.encodingFailed`.
    ///
    /// ModelStore calls this for a record with metadata (`first`) beside its model (`second`),
    /// so that a codec can encode both in one run instead of paying its fixed cost per call twice.
    /// The default implementation calls ``encode(_:appendingTo:)`` for each. If either throws,
    /// `buffer` is left as it was.
    func encode<First: Encodable, Second: Encodable>(
        _ first: First, then second: Second, appendingTo buffer: inout [UInt8]
    ) throws -> Int

    /// Decodes a model from bytes that are only valid for the duration of the call.
    ///
    /// ModelStore calls this on its read path with memory owned by LevelDB. The default
    /// implementation copies the bytes into a `Data` and calls ``decode(_:from:)``.
    /// Override it only if your decoder never keeps a reference to its input.
    func decode<Value: Decodable>(_ type: Value.Type, fromBytes bytes: UnsafeRawBufferPointer) throws -> Value
}

extension ModelCodec {
    /// Encodes through ``encode(_:)`` and appends the bytes.
    public func encode<Value: Encodable>(_ value: Value, appendingTo buffer: inout [UInt8]) throws {
        let data = try encode(value)
        buffer.append(contentsOf: data)
    }

    /// Encodes each value through ``encode(_:appendingTo:)``.
    public func encode<First: Encodable, Second: Encodable>(
        _ first: First, then second: Second, appendingTo buffer: inout [UInt8]
    ) throws -> Int {
        try encodeOneAfterTheOther(first, then: second, appendingTo: &buffer)
    }

    /// ``encode(_:then:appendingTo:)`` as two calls of ``encode(_:appendingTo:)``, for conforming
    /// types whose own implementation falls back to it.
    public func encodeOneAfterTheOther<First: Encodable, Second: Encodable>(
        _ first: First, then second: Second, appendingTo buffer: inout [UInt8]
    ) throws -> Int {
        let start = buffer.count
        do {
            try encode(first, appendingTo: &buffer)
            let middle = buffer.count
            try encode(second, appendingTo: &buffer)
            return middle
        } catch {
            // Either call: a codec's own `encode(_:appendingTo:)` may throw after appending part of a value.
            if buffer.count > start { buffer.removeSubrange(start...) }
            throw error
        }
    }

    /// Copies the bytes into a `Data` and decodes through ``decode(_:from:)``.
    public func decode<Value: Decodable>(
        _ type: Value.Type,
        fromBytes bytes: UnsafeRawBufferPointer
    ) throws -> Value {
        try decode(type, from: Data(bytes))
    }
}

/// The one-byte tag, stored in every record's header, that names the codec which wrote it.
public struct ModelCodecIdentifier: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The byte stored on disk.
    public let rawValue: UInt8

    /// Creates an identifier from its stored byte.
    public init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    /// ``JSONModelCodec``.
    public static let json = ModelCodecIdentifier(rawValue: 1)
    /// ``PropertyListModelCodec``.
    public static let propertyList = ModelCodecIdentifier(rawValue: 2)
    /// ``BinaryModelCodec``.
    public static let binary = ModelCodecIdentifier(rawValue: 3)

    /// An identifier for a codec of your own, in the range reserved for users (128...255).
    ///
    /// - Parameter value: A number from 0 to 127; it is stored as `128 + value`.
    public static func custom(_ value: UInt8) -> ModelCodecIdentifier {
        precondition(value < 128, "custom codec identifiers range from 0 to 127")
        return ModelCodecIdentifier(rawValue: 128 + value)
    }

    /// Whether this identifier names one of the codecs built into ModelStore.
    public var isBuiltIn: Bool { (1...3).contains(rawValue) }

    /// The codec's name, for logs and messages.
    public var description: String {
        switch self {
        case .json: return "json"
        case .propertyList: return "propertyList"
        case .binary: return "binary"
        default: return rawValue >= 128 ? "custom(\(rawValue - 128))" : "unknown(\(rawValue))"
        }
    }
}
