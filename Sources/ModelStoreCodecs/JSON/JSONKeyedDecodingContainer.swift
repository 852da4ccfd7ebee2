/// Reads the values of one JSON object by key, with the semantics of Foundation's keyed container.
///
/// A key that is absent throws `keyNotFound` from `decode` and reads as nil from `decodeIfPresent`, as does a null
/// value; keys the model does not ask for are never looked at. Of two equal keys the first wins.
///
/// The container holds only the cell that says which object it reads, so that the state can hand its box out
/// again for the next object with the same key type (see ``BinaryContainerBoxCache``).
struct JSONKeyedDecodingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let cell: JSONDecodingState.KeyedContainerCell

    /// Runs `body` with the state, the object's tape index and this container's coding-path depth (its values are
    /// one deeper).
    @inline(__always)
    private func withState<Result>(_ body: (JSONDecodingState, UInt32, Int) throws -> Result) rethrows -> Result {
        try cell.withState { state, place in try body(state, place.object, Int(place.depth)) }
    }

    var codingPath: [any CodingKey] {
        withState { state, object, depth in state.codingPath(value: object, depth: depth) }
    }

    /// The object's keys that `Key` can represent, each once. Foundation lists them in its dictionary's
    /// (unspecified) order; these come in document order.
    var allKeys: [Key] {
        withState { state, object, _ in state.keyNames(in: Int(object)).compactMap { Key(stringValue: $0) } }
    }

    func contains(_ key: Key) -> Bool {
        withState { state, object, _ in state.valueIndex(forKey: key, in: Int(object)) != nil }
    }

    // MARK: - Lookup

    /// The tape index of the value for `key`, or throws `keyNotFound`.
    @inline(__always)
    private func valueIndex(
        _ key: some CodingKey,
        _ state: JSONDecodingState,
        _ object: UInt32,
        _ depth: Int
    ) throws -> Int {
        guard let index = state.valueIndex(forKey: key, in: Int(object)) else {
            throw state.keyNotFound(key, codingPath: state.codingPath(value: object, depth: depth))
        }
        return index
    }

    /// The tape index of the value for `key`, or nil if it is absent or null.
    @inline(__always)
    private func presentValueIndex(_ key: some CodingKey, _ state: JSONDecodingState, _ object: UInt32) -> Int? {
        guard let index = state.valueIndex(forKey: key, in: Int(object)), state.kind(at: index) != .null else {
            return nil
        }
        return index
    }

    @inline(__always)
    private func decodeScalar<Value: JSONScalar>(_ type: Value.Type, forKey key: Key) throws -> Value {
        try withState { state, object, depth in
            try state.decodeScalar(
                type, at: try valueIndex(key, state, object, depth), depth: depth, key: key, parent: object
            )
        }
    }

    @inline(__always)
    private func decodeScalarIfPresent<Value: JSONScalar>(_ type: Value.Type, forKey key: Key) throws -> Value? {
        try withState { state, object, depth in
            guard let index = presentValueIndex(key, state, object) else { return nil }
            return try state.decodeScalar(type, at: index, depth: depth, key: key, parent: object)
        }
    }

    // MARK: - Decoding

    func decodeNil(forKey key: Key) throws -> Bool {
        try withState { state, object, depth in state.kind(at: try valueIndex(key, state, object, depth)) == .null }
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
        try withState { state, object, depth in
            try state.decode(type, at: try valueIndex(key, state, object, depth), depth: depth, key: key, parent: object)
        }
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
        try withState { state, object, depth in
            guard let index = presentValueIndex(key, state, object) else { return nil }
            return try state.decode(type, at: index, depth: depth, key: key, parent: object)
        }
    }

    // MARK: - Nesting

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type,
        forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try withState { state, object, depth in
            try decoder(for: key, at: try valueIndex(key, state, object, depth)).container(keyedBy: type)
        }
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try withState { state, object, depth in
            try decoder(for: key, at: try valueIndex(key, state, object, depth)).unkeyedContainer()
        }
    }

    /// A decoder for the value under the key `"super"`, or for null if there is none: Foundation's superDecoder
    /// never throws.
    func superDecoder() throws -> any Decoder {
        superDecoder(for: JSONCodingKey.superKey)
    }

    /// A decoder for the value under `key`, or for null if there is none.
    func superDecoder(forKey key: Key) throws -> any Decoder {
        superDecoder(for: key)
    }

    private func superDecoder(for key: some CodingKey) -> JSONValueDecoder {
        withState { state, object, _ in
            decoder(for: key, at: state.valueIndex(forKey: key, in: Int(object)) ?? state.makeMissingValue())
        }
    }

    private func decoder(for key: some CodingKey, at index: Int) -> JSONValueDecoder {
        withState { state, object, depth in
            let value = UInt32(truncatingIfNeeded: index)
            state.path.enter(key, atDepth: depth, value: value, parent: object)
            return JSONValueDecoder(state: state, value: value, depth: depth &+ 1)
        }
    }
}
