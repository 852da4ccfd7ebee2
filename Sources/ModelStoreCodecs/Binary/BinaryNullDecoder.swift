/// The decoder `superDecoder()` and `superDecoder(forKey:)` hand back when the record has no entry for the key: a
/// decoder for nil, as Foundation's `JSONDecoder` gives, so that a model which gains a superclass (or a
/// `superDecoder(forKey:)` call) still reads the records written before.
///
/// As with a stored nil, `decodeNil()` is true and every request for a value or a container throws
/// `DecodingError.valueNotFound`; a superclass whose `init(from:)` reads nothing, or only checks for nil, decodes.
struct BinaryNullDecoder: Decoder, SingleValueDecodingContainer {
    let codingPath: [any CodingKey]

    var userInfo: [CodingUserInfoKey: Any] {
        [:]
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        throw notFound(KeyedDecodingContainer<Key>.self, "Cannot get keyed decoding container -- found nil instead.")
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw notFound((any UnkeyedDecodingContainer).self, "Cannot get unkeyed decoding container -- found nil instead.")
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        self
    }

    func decodeNil() -> Bool {
        true
    }

    func decode(_ type: Bool.Type) throws -> Bool { throw missing(type) }
    func decode(_ type: String.Type) throws -> String { throw missing(type) }
    func decode(_ type: Double.Type) throws -> Double { throw missing(type) }
    func decode(_ type: Float.Type) throws -> Float { throw missing(type) }
    func decode(_ type: Int.Type) throws -> Int { throw missing(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { throw missing(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { throw missing(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { throw missing(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { throw missing(type) }
    func decode(_ type: UInt.Type) throws -> UInt { throw missing(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { throw missing(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { throw missing(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { throw missing(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { throw missing(type) }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    func decode(_ type: Int128.Type) throws -> Int128 { throw missing(type) }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    func decode(_ type: UInt128.Type) throws -> UInt128 { throw missing(type) }

    /// Lets the type decide: an Optional reads nil through `decodeNil()`, anything else asks for a container or a
    /// scalar and gets `valueNotFound`.
    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try T(from: self)
    }

    private func missing(_ type: Any.Type) -> DecodingError {
        notFound(type, "Expected \(type) value but found nil instead.")
    }

    private func notFound(_ type: Any.Type, _ message: String) -> DecodingError {
        .valueNotFound(type, .init(codingPath: codingPath, debugDescription: message))
    }
}
