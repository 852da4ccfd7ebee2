/// Reads the values of one JSON object by key, with the semantics of Foundation's keyed container.
///
/// A key that is absent throws `keyNotFound` from `decode` and reads as nil from `decodeIfPresent`, as does a null
/// value; keys the model does not ask for are never looked at. Of two equal keys the first wins.
struct JSONKeyedDecodingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let state: JSONDecodingState
    /// The object's tape index.
    let object: UInt32
    /// The coding-path depth of this container; its values are one deeper.
    let depth: UInt32

    var codingPath: [any CodingKey] {
        state.codingPath(value: object, depth: Int(depth))
    }

    /// The object's keys that `Key` can represent, each once. Foundation lists them in its dictionary's
    /// (unspecified) order; these come in document order.
    var allKeys: [Key] {
        state.keyNames(in: Int(object)).compactMap { Key(stringValue: $0) }
    }

    func contains(_ key: Key) -> Bool {
        state.valueIndex(forKey: key, in: Int(object)) != nil
    }

    // MARK: - Lookup

    /// The tape index of the value for `key`, or throws `keyNotFound`.
    @inline(__always)
    private func valueIndex(_ key: some CodingKey) throws -> Int {
        guard let index = state.valueIndex(forKey: key, in: Int(object)) else {
            throw state.keyNotFound(key, codingPath: codingPath)
        }
        return index
    }

    /// The tape index of the value for `key`, or nil if it is absent or null.
    @inline(__always)
    private func presentValueIndex(_ key: some CodingKey) -> Int? {
        guard let index = state.valueIndex(forKey: key, in: Int(object)), state.kind(at: index) != .null else {
            return nil
        }
        return index
    }

    @inline(__always)
    private func decodeScalar<Value: JSONScalar>(_ type: Value.Type, forKey key: Key) throws -> Value {
        try state.decodeScalar(type, at: try valueIndex(key), depth: Int(depth), key: key, parent: object)
    }

    @inline(__always)
    private func decodeScalarIfPresent<Value: JSONScalar>(_ type: Value.Type, forKey key: Key) throws -> Value? {
        guard let index = presentValueIndex(key) else { return nil }
        return try state.decodeScalar(type, at: index, depth: Int(depth), key: key, parent: object)
    }

    // MARK: - Decoding

    func decodeNil(forKey key: Key) throws -> Bool {
        state.kind(at: try valueIndex(key)) == .null
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decodeScalar(type, forKey: key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try decodeScalar(type, forKey: key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try decodeScalar(type, forKey: key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try decodeScalar(type, forKey: key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try decodeScalar(type, forKey: key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try decodeScalar(type, forKey: key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try decodeScalar(type, forKey: key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try decodeScalar(type, forKey: key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try decodeScalar(type, forKey: key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try decodeScalar(type, forKey: key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try decodeScalar(type, forKey: key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try decodeScalar(type, forKey: key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try decodeScalar(type, forKey: key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try decodeScalar(type, forKey: key) }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    func decode(_ type: Int128.Type, forKey key: Key) throws -> Int128 { try decodeScalar(type, forKey: key) }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    func decode(_ type: UInt128.Type, forKey key: Key) throws -> UInt128 { try decodeScalar(type, forKey: key) }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try state.decode(type, at: try valueIndex(key), depth: Int(depth), key: key, parent: object)
    }

    // One lookup instead of the default implementation's three (contains, decodeNil, decode).

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
        try decodeScalarIfPresent(type, forKey: key)
    }

    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        try decodeScalarIfPresent(type, forKey: key)
    }

    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
        try decodeScalarIfPresent(type, forKey: key)
    }

    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? {
        try decodeScalarIfPresent(type, forKey: key)
    }

    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? {
        try decodeScalarIfPresent(type, forKey: key)
    }

    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? {
        try decodeScalarIfPresent(type, forKey: key)
    }

    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? {
        try decodeScalarIfPresent(type, forKey: key)
    }

    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? {
        try decodeScalarIfPresent(type, forKey: key)
    }

    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? {
        try decodeScalarIfPresent(type, forKey: key)
    }

    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? {
        try decodeScalarIfPresent(type, forKey: key)
    }

    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? {
        try decodeScalarIfPresent(type, forKey: key)
    }

    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? {
        try decodeScalarIfPresent(type, forKey: key)
    }

    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? {
        try decodeScalarIfPresent(type, forKey: key)
    }

    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? {
        try decodeScalarIfPresent(type, forKey: key)
    }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    func decodeIfPresent(_ type: Int128.Type, forKey key: Key) throws -> Int128? {
        try decodeScalarIfPresent(type, forKey: key)
    }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    func decodeIfPresent(_ type: UInt128.Type, forKey key: Key) throws -> UInt128? {
        try decodeScalarIfPresent(type, forKey: key)
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let index = presentValueIndex(key) else { return nil }
        return try state.decode(type, at: index, depth: Int(depth), key: key, parent: object)
    }

    // MARK: - Nesting

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type,
        forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try decoder(for: key, at: try valueIndex(key)).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try decoder(for: key, at: try valueIndex(key)).unkeyedContainer()
    }

    /// A decoder for the value under the key `"super"`, or for null if there is none: Foundation's superDecoder
    /// never throws.
    func superDecoder() throws -> any Decoder {
        let key = JSONCodingKey.superKey
        return decoder(for: key, at: state.valueIndex(forKey: key, in: Int(object)) ?? state.makeMissingValue())
    }

    /// A decoder for the value under `key`, or for null if there is none.
    func superDecoder(forKey key: Key) throws -> any Decoder {
        decoder(for: key, at: state.valueIndex(forKey: key, in: Int(object)) ?? state.makeMissingValue())
    }

    private func decoder(for key: some CodingKey, at index: Int) -> JSONValueDecoder {
        let value = UInt32(truncatingIfNeeded: index)
        state.path.enter(key, atDepth: Int(depth), value: value, parent: object)
        return JSONValueDecoder(state: state, value: value, depth: Int(depth) &+ 1)
    }
}
