/// A JSON object being written: each call writes its key, then the value, straight into the output.
///
/// `frame` is nil when the container could not be opened (the run has already failed); every call then throws.
struct JSONKeyedEncodingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let state: JSONEncodingState
    let frame: (index: Int, id: Int)?

    var codingPath: [any CodingKey] {
        guard let frame else { return [] }
        return state.codingPath(frame: frame.index, id: frame.id)
    }

    /// Writes `key` (checked against the keys already written) and its colon.
    private func writeKey(_ key: Key) throws {
        guard let frame else { throw state.fail() }
        try state.writeKey(key.stringValue, frame: frame.index, id: frame.id)
    }

    mutating func encodeNil(forKey key: Key) throws {
        try writeKey(key)
        state.writeNull()
    }

    mutating func encode(_ value: Bool, forKey key: Key) throws {
        try writeKey(key)
        state.writeBool(value)
    }

    mutating func encode(_ value: String, forKey key: Key) throws {
        try writeKey(key)
        state.writeString(value)
    }

    mutating func encode(_ value: Double, forKey key: Key) throws {
        try writeKey(key)
        try state.writeFloat(value)
    }

    mutating func encode(_ value: Float, forKey key: Key) throws {
        try writeKey(key)
        try state.writeFloat(value)
    }

    mutating func encode(_ value: Int, forKey key: Key) throws { try encodeInteger(value, forKey: key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { try encodeInteger(value, forKey: key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { try encodeInteger(value, forKey: key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { try encodeInteger(value, forKey: key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { try encodeInteger(value, forKey: key) }
    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    mutating func encode(_ value: Int128, forKey key: Key) throws { try encodeInteger(value, forKey: key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { try encodeInteger(value, forKey: key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { try encodeInteger(value, forKey: key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { try encodeInteger(value, forKey: key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { try encodeInteger(value, forKey: key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { try encodeInteger(value, forKey: key) }
    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    mutating func encode(_ value: UInt128, forKey key: Key) throws { try encodeInteger(value, forKey: key) }

    private func encodeInteger<Integer: FixedWidthInteger>(_ value: Integer, forKey key: Key) throws {
        try writeKey(key)
        state.writeInteger(value)
    }

    mutating func encode<Value: Encodable>(_ value: Value, forKey key: Key) throws {
        try writeKey(key)
        try state.encodeValue(value, key: key)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type,
        forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        let frame = openNested(forKey: key, isObject: true)
        return KeyedEncodingContainer(JSONKeyedEncodingContainer<NestedKey>(state: state, frame: frame))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        JSONUnkeyedEncodingContainer(state: state, frame: openNested(forKey: key, isObject: false))
    }

    private func openNested(forKey key: Key, isObject: Bool) -> (index: Int, id: Int)? {
        guard (try? writeKey(key)) != nil else {
            _ = state.fail()
            return nil
        }
        return state.openFrame(isObject: isObject, nestedKey: key)
    }

    /// Foundation fills the `super` key when the returned encoder is released, which a stream cannot wait for.
    mutating func superEncoder() -> any Encoder {
        _ = state.fail()
        return JSONEncodingEncoder(state: state, slot: -1, pathCount: 0)
    }

    /// Left to Foundation, as ``superEncoder()`` is.
    mutating func superEncoder(forKey key: Key) -> any Encoder {
        superEncoder()
    }
}
