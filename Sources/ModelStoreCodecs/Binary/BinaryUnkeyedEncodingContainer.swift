/// Writes the elements of one unkeyed container, one value after another.
struct BinaryUnkeyedEncodingContainer: UnkeyedEncodingContainer {
    let state: BinaryEncodingState
    /// Where this container's header is, or -1 if it could not be opened (every write then throws).
    private let header: Int
    /// This container's index among the open containers, and its coding-path depth, packed so the struct fits an
    /// existential's inline buffer.
    private let storedLevel: Int32
    private let storedDepth: Int32
    private var storedCount: Int

    init(state: BinaryEncodingState, header: Int, level: Int, depth: Int) {
        self.state = state
        self.header = header
        storedLevel = Int32(truncatingIfNeeded: level)
        storedDepth = Int32(truncatingIfNeeded: depth)
        storedCount = 0
    }

    private var level: Int { Int(storedLevel) }
    private var depth: Int { Int(storedDepth) }

    var codingPath: [any CodingKey] {
        state.codingPath(depth: depth)
    }

    var count: Int {
        storedCount
    }

    private var nextKey: BinaryCodingKey {
        .index(storedCount)
    }

    private mutating func encodePrimitive(_ value: some BinaryPrimitive) throws {
        try state.beginElement(level: level, header: header, depth: depth, key: nextKey)
        value.write(to: &state.writer)
        storedCount += 1
    }

    mutating func encodeNil() throws {
        try state.beginElement(level: level, header: header, depth: depth, key: nextKey)
        state.writer.writeTag(BinaryFormat.Tag.null)
        storedCount += 1
    }

    mutating func encode(_ value: Bool) throws { try encodePrimitive(value) }
    mutating func encode(_ value: String) throws { try encodePrimitive(value) }
    mutating func encode(_ value: Double) throws { try encodePrimitive(value) }
    mutating func encode(_ value: Float) throws { try encodePrimitive(value) }
    mutating func encode(_ value: Int) throws { try encodePrimitive(value) }
    mutating func encode(_ value: Int8) throws { try encodePrimitive(value) }
    mutating func encode(_ value: Int16) throws { try encodePrimitive(value) }
    mutating func encode(_ value: Int32) throws { try encodePrimitive(value) }
    mutating func encode(_ value: Int64) throws { try encodePrimitive(value) }
    mutating func encode(_ value: UInt) throws { try encodePrimitive(value) }
    mutating func encode(_ value: UInt8) throws { try encodePrimitive(value) }
    mutating func encode(_ value: UInt16) throws { try encodePrimitive(value) }
    mutating func encode(_ value: UInt32) throws { try encodePrimitive(value) }
    mutating func encode(_ value: UInt64) throws { try encodePrimitive(value) }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    mutating func encode(_ value: Int128) throws {
        try state.checkFits64Bits(value, codingPath: state.codingPath(depth: depth, appending: nextKey))
        try encodePrimitive(value)
    }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    mutating func encode(_ value: UInt128) throws {
        try state.checkFits64Bits(value, codingPath: state.codingPath(depth: depth, appending: nextKey))
        try encodePrimitive(value)
    }

    mutating func encode<T: Encodable>(_ value: T) throws {
        let mark = state.writer.count
        try state.beginElement(level: level, header: header, depth: depth, key: nextKey)
        do {
            try state.encode(value, level: level + 1, depth: depth, key: nextKey)
        } catch {
            state.rollBack(to: mark, level: level, header: header)
            throw error
        }
        storedCount += 1
    }

    // MARK: - Nesting

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type
    ) -> KeyedEncodingContainer<NestedKey> {
        nextSlotEncoder().container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        nextSlotEncoder().unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        let key = nextKey
        let encoder = nextSlotEncoder()
        if encoder.slot >= 0 {
            // See BinaryKeyedEncodingContainer.placeholderSlot(forKey:): the element must exist even if unused.
            state.writer.writeTag(BinaryFormat.Tag.null)
        }
        return BinarySuperEncoder(slot: encoder, key: key)
    }

    /// Starts the next element and returns an encoder for it; a misplaced call yields one that throws on use.
    private mutating func nextSlotEncoder() -> BinaryEncoder {
        var slot = -1
        do {
            try state.beginElement(level: level, header: header, depth: depth, key: nextKey)
            slot = state.writer.count
            state.enter(nextKey, atDepth: depth)
            storedCount += 1
        } catch {
            state.record(error)
        }
        return BinaryEncoder(state: state, slot: slot, level: level + 1, depth: depth + 1)
    }
}
