/// Writes the entries of one keyed container: each entry is the key's UTF-8 bytes followed by the value.
///
/// The container holds only the cell that says where it writes, so that its box can be reused (see
/// ``BinaryContainerBoxCache``).
struct BinaryKeyedEncodingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let cell: BinaryEncodingState.KeyedContainerCell

    /// Where this container's header is, or -1 if it could not be opened (every write then throws).
    private var header: Int {
        cell.place.header
    }

    /// This container's index among the open containers.
    private var level: Int {
        cell.place.level
    }

    /// The coding-path depth of this container; its values are one deeper.
    private var depth: Int {
        cell.place.depth
    }

    /// Runs `body` with the encoding state, or throws if the encode call this container belongs to has returned.
    @inline(__always)
    private func withState<Result>(_ body: (BinaryEncodingState) throws -> Result) throws -> Result {
        try cell.withState(orThrow: BinaryEncodingState.expired, body)
    }

    var codingPath: [any CodingKey] {
        cell.withState(else: []) { $0.codingPath(depth: depth) }
    }

    private func encodePrimitive(_ value: some BinaryPrimitive, forKey key: Key) throws {
        try withState { state in
            try state.beginEntry(level: level, header: header, depth: depth, key: key)
            value.write(to: &state.writer)
        }
    }

    mutating func encodeNil(forKey key: Key) throws {
        try encodeNull(forKey: key)
    }

    private func encodeNull(forKey key: Key) throws {
        try withState { state in
            try state.beginEntry(level: level, header: header, depth: depth, key: key)
            state.writer.writeTag(BinaryFormat.Tag.null)
        }
    }

    mutating func encode(_ value: Bool, forKey key: Key) throws { try encodePrimitive(value, forKey: key) }
    mutating func encode(_ value: String, forKey key: Key) throws { try encodePrimitive(value, forKey: key) }
    mutating func encode(_ value: Double, forKey key: Key) throws { try encodePrimitive(value, forKey: key) }
    mutating func encode(_ value: Float, forKey key: Key) throws { try encodePrimitive(value, forKey: key) }
    mutating func encode(_ value: Int, forKey key: Key) throws { try encodePrimitive(value, forKey: key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { try encodePrimitive(value, forKey: key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { try encodePrimitive(value, forKey: key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { try encodePrimitive(value, forKey: key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { try encodePrimitive(value, forKey: key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { try encodePrimitive(value, forKey: key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { try encodePrimitive(value, forKey: key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { try encodePrimitive(value, forKey: key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { try encodePrimitive(value, forKey: key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { try encodePrimitive(value, forKey: key) }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    mutating func encode(_ value: Int128, forKey key: Key) throws {
        try withState { try $0.checkFits64Bits(value, codingPath: $0.codingPath(depth: depth, appending: key)) }
        try encodePrimitive(value, forKey: key)
    }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    mutating func encode(_ value: UInt128, forKey key: Key) throws {
        try withState { try $0.checkFits64Bits(value, codingPath: $0.codingPath(depth: depth, appending: key)) }
        try encodePrimitive(value, forKey: key)
    }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try encodeValue(value, forKey: key)
    }

    // Non-mutating, like the primitives' path: in a mutating method `self` is inout, and the closure below made
    // Swift retain and release the cell around every call.
    private func encodeValue<T: Encodable>(_ value: T, forKey key: Key) throws {
        try withState { state in
            let mark = state.writer.count
            try state.beginEntry(level: level, header: header, depth: depth, key: key)
            do {
                try state.encode(value, level: level + 1, depth: depth, key: key)
            } catch {
                state.rollBack(to: mark, level: level, header: header)
                throw error
            }
        }
    }

    // MARK: - Nesting

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type,
        forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        slotEncoder(forKey: key).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        slotEncoder(forKey: key).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        BinarySuperEncoder(slot: placeholderSlot(forKey: BinaryCodingKey.superKey), key: BinaryCodingKey.superKey)
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        BinarySuperEncoder(slot: placeholderSlot(forKey: key), key: key)
    }

    /// Writes `key` and returns an encoder for its value. Nesting cannot throw in Codable, so a misplaced call
    /// yields an encoder whose containers throw on every write (and make the whole encode throw).
    private func slotEncoder(forKey key: some CodingKey) -> BinaryEncoder {
        cell.withState(else: BinaryEncodingState.expiredEncoder()) { state in
            var slot = -1
            do {
                try state.beginEntry(level: level, header: header, depth: depth, key: key)
                slot = state.writer.count
                state.enter(key, atDepth: depth)
            } catch {
                state.record(error)
            }
            return BinaryEncoder(state: state, slot: slot, level: level + 1, depth: depth + 1)
        }
    }

    /// Like ``slotEncoder(forKey:)``, but stores nil in the slot until the returned encoder is used, because a
    /// super encoder may never be used at all and an entry must always have a value.
    private func placeholderSlot(forKey key: some CodingKey) -> BinaryEncoder {
        let encoder = slotEncoder(forKey: key)
        if encoder.slot >= 0 {
            encoder.state.writer.writeTag(BinaryFormat.Tag.null)
        }
        return encoder
    }
}
