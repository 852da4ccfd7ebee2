/// Writes the one value an encoder's slot holds.
struct BinarySingleValueEncodingContainer: SingleValueEncodingContainer {
    let encoder: BinaryEncoder

    var codingPath: [any CodingKey] {
        encoder.codingPath
    }

    private var state: BinaryEncodingState {
        encoder.state
    }

    private func begin() throws {
        try state.beginSingleValue(slot: encoder.slot, level: encoder.level, depth: encoder.depth)
    }

    private func encodePrimitive(_ value: some BinaryPrimitive) throws {
        try begin()
        value.write(to: &state.writer)
    }

    func encodeNil() throws {
        try begin()
        state.writer.writeTag(BinaryFormat.Tag.null)
    }

    func encode(_ value: Bool) throws { try encodePrimitive(value) }
    func encode(_ value: String) throws { try encodePrimitive(value) }
    func encode(_ value: Double) throws { try encodePrimitive(value) }
    func encode(_ value: Float) throws { try encodePrimitive(value) }
    func encode(_ value: Int) throws { try encodePrimitive(value) }
    func encode(_ value: Int8) throws { try encodePrimitive(value) }
    func encode(_ value: Int16) throws { try encodePrimitive(value) }
    func encode(_ value: Int32) throws { try encodePrimitive(value) }
    func encode(_ value: Int64) throws { try encodePrimitive(value) }
    func encode(_ value: UInt) throws { try encodePrimitive(value) }
    func encode(_ value: UInt8) throws { try encodePrimitive(value) }
    func encode(_ value: UInt16) throws { try encodePrimitive(value) }
    func encode(_ value: UInt32) throws { try encodePrimitive(value) }
    func encode(_ value: UInt64) throws { try encodePrimitive(value) }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    func encode(_ value: Int128) throws {
        try state.checkFits64Bits(value, codingPath: encoder.codingPath)
        try encodePrimitive(value)
    }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    func encode(_ value: UInt128) throws {
        try state.checkFits64Bits(value, codingPath: encoder.codingPath)
        try encodePrimitive(value)
    }

    func encode<T: Encodable>(_ value: T) throws {
        try begin()
        // No key: the value occupies this same slot, at the same place in the coding path.
        try state.encodeSingleValue(value, level: encoder.level, depth: encoder.depth)
    }
}
