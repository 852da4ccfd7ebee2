/// The `Encoder` handed to each value's `encode(to:)`, and its single-value container.
///
/// A small struct (it fits in an existential's inline buffer, so passing it as `any Encoder` never allocates) naming
/// the slot it may write into; ``JSONEncodingState`` checks the slot on every call.
struct JSONEncodingEncoder: Encoder, SingleValueEncodingContainer {
    let state: JSONEncodingState
    /// The slot of the value this encoder encodes.
    let slot: Int
    /// How much of the state's path is this encoder's coding path.
    let pathCount: Int

    var codingPath: [any CodingKey] { state.codingPath(count: pathCount) }

    /// Foundation passes its encoder's `userInfo`; the fast encoder is only used when that is empty.
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        state.makeKeyedContainer(Key.self, frame: state.container(slot: slot, isObject: true))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        JSONUnkeyedEncodingContainer(state: state, frame: state.container(slot: slot, isObject: false))
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { self }

    // MARK: - SingleValueEncodingContainer

    func encodeNil() throws {
        try state.beginSingleValue(slot: slot)
        state.writeNull()
    }

    func encode(_ value: Bool) throws {
        try state.beginSingleValue(slot: slot)
        state.writeBool(value)
    }

    func encode(_ value: String) throws {
        try state.beginSingleValue(slot: slot)
        state.writeString(value)
    }

    func encode(_ value: Double) throws {
        try state.beginSingleValue(slot: slot)
        try state.writeFloat(value)
    }

    func encode(_ value: Float) throws {
        try state.beginSingleValue(slot: slot)
        try state.writeFloat(value)
    }

    func encode(_ value: Int) throws { try encodeInteger(value) }
    func encode(_ value: Int8) throws { try encodeInteger(value) }
    func encode(_ value: Int16) throws { try encodeInteger(value) }
    func encode(_ value: Int32) throws { try encodeInteger(value) }
    func encode(_ value: Int64) throws { try encodeInteger(value) }
    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    func encode(_ value: Int128) throws { try encodeInteger(value) }
    func encode(_ value: UInt) throws { try encodeInteger(value) }
    func encode(_ value: UInt8) throws { try encodeInteger(value) }
    func encode(_ value: UInt16) throws { try encodeInteger(value) }
    func encode(_ value: UInt32) throws { try encodeInteger(value) }
    func encode(_ value: UInt64) throws { try encodeInteger(value) }
    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    func encode(_ value: UInt128) throws { try encodeInteger(value) }

    private func encodeInteger<Integer: FixedWidthInteger>(_ value: Integer) throws {
        try state.beginSingleValue(slot: slot)
        state.writeInteger(value)
    }

    func encode<Value: Encodable>(_ value: Value) throws {
        try state.beginSingleValue(slot: slot)
        // Foundation encodes it with this same encoder, so the coding path gains no key.
        try state.encodeValue(value)
    }
}
