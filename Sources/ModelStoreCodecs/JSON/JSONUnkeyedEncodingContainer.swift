/// A JSON array being written: each call writes a comma if needed, then the element, straight into the output.
///
/// `frame` is nil when the container could not be opened (the run has already failed); every call then throws.
struct JSONUnkeyedEncodingContainer: UnkeyedEncodingContainer {
    let state: JSONEncodingState
    let frame: (index: Int, id: Int)?

    var codingPath: [any CodingKey] {
        guard let frame else { return [] }
        return state.codingPath(frame: frame.index, id: frame.id)
    }

    var count: Int {
        guard let frame else { return 0 }
        return state.count(frame: frame.index, id: frame.id)
    }

    /// Starts an element, and returns its index.
    @discardableResult
    private func startElement() throws -> Int {
        guard let frame else { throw state.fail() }
        return try state.writeElementSeparator(frame: frame.index, id: frame.id)
    }

    mutating func encodeNil() throws {
        try startElement()
        state.writeNull()
    }

    mutating func encode(_ value: Bool) throws {
        try startElement()
        state.writeBool(value)
    }

    mutating func encode(_ value: String) throws {
        try startElement()
        state.writeString(value)
    }

    mutating func encode(_ value: Double) throws {
        try startElement()
        try state.writeFloat(value)
    }

    mutating func encode(_ value: Float) throws {
        try startElement()
        try state.writeFloat(value)
    }

    mutating func encode(_ value: Int) throws { try encodeInteger(value) }
    mutating func encode(_ value: Int8) throws { try encodeInteger(value) }
    mutating func encode(_ value: Int16) throws { try encodeInteger(value) }
    mutating func encode(_ value: Int32) throws { try encodeInteger(value) }
    mutating func encode(_ value: Int64) throws { try encodeInteger(value) }
    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    mutating func encode(_ value: Int128) throws { try encodeInteger(value) }
    mutating func encode(_ value: UInt) throws { try encodeInteger(value) }
    mutating func encode(_ value: UInt8) throws { try encodeInteger(value) }
    mutating func encode(_ value: UInt16) throws { try encodeInteger(value) }
    mutating func encode(_ value: UInt32) throws { try encodeInteger(value) }
    mutating func encode(_ value: UInt64) throws { try encodeInteger(value) }
    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    mutating func encode(_ value: UInt128) throws { try encodeInteger(value) }

    private func encodeInteger<Integer: FixedWidthInteger>(_ value: Integer) throws {
        try startElement()
        state.writeInteger(value)
    }

    mutating func encode<Value: Encodable>(_ value: Value) throws {
        let index = try startElement()
        try state.encodeValue(value, key: JSONCodingKey.index(index))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type
    ) -> KeyedEncodingContainer<NestedKey> {
        state.makeKeyedContainer(NestedKey.self, frame: openNested(isObject: true))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        JSONUnkeyedEncodingContainer(state: state, frame: openNested(isObject: false))
    }

    private func openNested(isObject: Bool) -> (index: Int, id: Int)? {
        guard let index = try? startElement() else {
            _ = state.fail()
            return nil
        }
        return state.openNestedFrame(isObject: isObject, key: JSONCodingKey.index(index))
    }

    /// Foundation inserts the value when the returned encoder is released, which a stream cannot wait for.
    mutating func superEncoder() -> any Encoder {
        _ = state.fail()
        return JSONEncodingEncoder(state: state, slot: -1, pathCount: 0)
    }
}
