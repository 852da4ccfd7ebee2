/// A JSON object being written: each call writes its key, then the value, straight into the output.
///
/// The container holds only the cell with its state and frame, so that the state can hand its box out again for
/// the next object with the same key type (see ``BinaryContainerBoxCache``). The cell's frame is nil when the
/// container could not be opened (the run has already failed); every call then throws.
struct JSONKeyedEncodingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let cell: JSONEncodingState.KeyedContainerCell

    var codingPath: [any CodingKey] {
        cell.withState { state, frame in
            guard let frame else { return [] }
            return state.codingPath(frame: frame.index, id: frame.id)
        }
    }

    /// Writes `key` (checked against the keys already written) and its colon, then calls `body` to write the
    /// value.
    @inline(__always)
    private func write(_ key: Key, _ body: (JSONEncodingState) throws -> Void) throws {
        try cell.withState { state, frame in
            guard let frame else { throw state.fail() }
            try state.writeKey(key.stringValue, frame: frame.index, id: frame.id)
            try body(state)
        }
    }

    mutating func encodeNil(forKey key: Key) throws {
        try write(key) { $0.writeNull() }
    }

    mutating func encode(_ value: Bool, forKey key: Key) throws {
        try write(key) { $0.writeBool(value) }
    }

    mutating func encode(_ value: String, forKey key: Key) throws {
        try write(key) { $0.writeString(value) }
    }

    mutating func encode(_ value: Double, forKey key: Key) throws {
        try write(key) { try $0.writeFloat(value) }
    }

    mutating func encode(_ value: Float, forKey key: Key) throws {
        try write(key) { try $0.writeFloat(value) }
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
        try write(key) { $0.writeInteger(value) }
    }

    mutating func encode<Value: Encodable>(_ value: Value, forKey key: Key) throws {
        try write(key) { try $0.encodeValue(value, key: key) }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type,
        forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        openNested(forKey: key, isObject: true) { state, frame in
            state.makeKeyedContainer(NestedKey.self, frame: frame)
        }
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        openNested(forKey: key, isObject: false) { state, frame in
            JSONUnkeyedEncodingContainer(state: state, frame: frame)
        }
    }

    /// Opens a nested array or object under `key` and returns what `make` makes of the state and its frame (nil
    /// if it could not be opened).
    private func openNested<Result>(
        forKey key: Key,
        isObject: Bool,
        _ make: (JSONEncodingState, (index: Int, id: Int)?) -> Result
    ) -> Result {
        let opened = cell.withState { state, _ in
            guard (try? write(key, { _ in })) != nil else {
                _ = state.fail()
                return make(state, nil)
            }
            return make(state, state.openNestedFrame(isObject: isObject, key: key))
        }
        return opened
    }

    /// Foundation fills the `super` key when the returned encoder is released, which a stream cannot wait for.
    mutating func superEncoder() -> any Encoder {
        cell.withState { state, _ in
            _ = state.fail()
            return JSONEncodingEncoder(state: state, slot: -1, pathCount: 0)
        }
    }

    /// Left to Foundation, as ``superEncoder()`` is.
    mutating func superEncoder(forKey key: Key) -> any Encoder {
        superEncoder()
    }
}
