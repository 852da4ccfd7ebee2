/// Reads the entries of one stored keyed container by key name.
///
/// Keys are matched by their UTF-8 bytes, so entries this model does not know are simply never looked at, and a
/// missing key is reported as absent (`decodeIfPresent` returns nil) rather than as corruption.
struct BinaryKeyedDecodingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let state: BinaryDecodingState
    let bounds: BinaryReader.ContainerBounds
    /// The coding-path depth of this container; its values are one deeper.
    let depth: Int

    var codingPath: [any CodingKey] {
        state.codingPath(depth: depth)
    }

    /// The keys this model understands, in stored order. A damaged container yields the keys before the damage;
    /// decoding from it then throws.
    var allKeys: [Key] {
        var keys: [Key] = []
        keys.reserveCapacity(bounds.count)
        state.forEachEntry(in: bounds) { entry in
            if let name = state.reader.keyString(start: entry.keyStart, length: entry.keyLength),
                let key = Key(stringValue: name)
            {
                keys.append(key)
            }
        }
        return keys
    }

    func contains(_ key: Key) -> Bool {
        (try? find(key)) != nil
    }

    // MARK: - Lookup

    /// Where the value for `key` starts, or nil if the container has no such key.
    private func find(_ key: some CodingKey) throws -> Int? {
        if let position = state.valuePosition(of: key, in: bounds, depth: depth) {
            return position
        }
        // A miss is either an absent key or a damaged container; tell them apart before answering.
        try state.validateKeyedContainer(bounds, depth: depth)
        return nil
    }

    private func require(_ key: some CodingKey) throws -> Int {
        guard let position = try find(key) else {
            throw DecodingError.keyNotFound(key, .init(
                codingPath: codingPath,
                debugDescription: "No value associated with key \(key.stringValue)."
            ))
        }
        return position
    }

    private func isNil(at position: Int) -> Bool {
        (try? state.reader.tag(at: position, limit: bounds.bodyEnd)) == BinaryFormat.Tag.null
    }

    private func decodePrimitive<Value: BinaryPrimitive>(_ type: Value.Type, forKey key: Key) throws -> Value {
        var position = try require(key)
        let value = try state.decodePrimitive(type, at: &position, limit: bounds.bodyEnd, depth: depth, key: key)
        state.rememberEntryEnd(position, in: bounds, depth: depth)
        return value
    }

    private func decodePrimitiveIfPresent<Value: BinaryPrimitive>(
        _ type: Value.Type,
        forKey key: Key
    ) throws -> Value? {
        guard var position = try find(key), !isNil(at: position) else { return nil }
        let value = try state.decodePrimitive(type, at: &position, limit: bounds.bodyEnd, depth: depth, key: key)
        state.rememberEntryEnd(position, in: bounds, depth: depth)
        return value
    }

    // MARK: - Decoding

    func decodeNil(forKey key: Key) throws -> Bool {
        isNil(at: try require(key))
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decodePrimitive(type, forKey: key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try decodePrimitive(type, forKey: key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try decodePrimitive(type, forKey: key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try decodePrimitive(type, forKey: key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try decodePrimitive(type, forKey: key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try decodePrimitive(type, forKey: key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try decodePrimitive(type, forKey: key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try decodePrimitive(type, forKey: key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try decodePrimitive(type, forKey: key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try decodePrimitive(type, forKey: key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try decodePrimitive(type, forKey: key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try decodePrimitive(type, forKey: key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try decodePrimitive(type, forKey: key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try decodePrimitive(type, forKey: key) }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    func decode(_ type: Int128.Type, forKey key: Key) throws -> Int128 { try decodePrimitive(type, forKey: key) }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    func decode(_ type: UInt128.Type, forKey key: Key) throws -> UInt128 { try decodePrimitive(type, forKey: key) }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        var position = try require(key)
        let value = try state.decode(type, at: &position, limit: bounds.bodyEnd, depth: depth, key: key)
        state.rememberEntryEnd(position, in: bounds, depth: depth)
        return value
    }

    // One lookup instead of the default implementation's three (contains, decodeNil, decode).

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
        try decodePrimitiveIfPresent(type, forKey: key)
    }

    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        try decodePrimitiveIfPresent(type, forKey: key)
    }

    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
        try decodePrimitiveIfPresent(type, forKey: key)
    }

    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? {
        try decodePrimitiveIfPresent(type, forKey: key)
    }

    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? {
        try decodePrimitiveIfPresent(type, forKey: key)
    }

    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? {
        try decodePrimitiveIfPresent(type, forKey: key)
    }

    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? {
        try decodePrimitiveIfPresent(type, forKey: key)
    }

    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? {
        try decodePrimitiveIfPresent(type, forKey: key)
    }

    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? {
        try decodePrimitiveIfPresent(type, forKey: key)
    }

    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? {
        try decodePrimitiveIfPresent(type, forKey: key)
    }

    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? {
        try decodePrimitiveIfPresent(type, forKey: key)
    }

    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? {
        try decodePrimitiveIfPresent(type, forKey: key)
    }

    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? {
        try decodePrimitiveIfPresent(type, forKey: key)
    }

    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? {
        try decodePrimitiveIfPresent(type, forKey: key)
    }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    func decodeIfPresent(_ type: Int128.Type, forKey key: Key) throws -> Int128? {
        try decodePrimitiveIfPresent(type, forKey: key)
    }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    func decodeIfPresent(_ type: UInt128.Type, forKey key: Key) throws -> UInt128? {
        try decodePrimitiveIfPresent(type, forKey: key)
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard var position = try find(key), !isNil(at: position) else { return nil }
        let value = try state.decode(type, at: &position, limit: bounds.bodyEnd, depth: depth, key: key)
        state.rememberEntryEnd(position, in: bounds, depth: depth)
        return value
    }

    // MARK: - Nesting

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type,
        forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try decoder(forKey: key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try decoder(forKey: key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        try decoder(forKey: BinaryCodingKey.superKey)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        try decoder(forKey: key)
    }

    /// A decoder for the value under `key`, which is read only when the caller asks for a container.
    private func decoder(forKey key: some CodingKey) throws -> BinaryDecoder {
        let position = try require(key)
        try state.checkDepth(depth + 1, at: position)
        let end: Int
        do {
            end = try state.reader.skip(at: position, limit: bounds.bodyEnd)
        } catch {
            throw error.decodingError(Any.self, codingPath: state.codingPath(depth: depth, appending: key))
        }
        state.enter(key, atDepth: depth)
        return BinaryDecoder(state: state, position: position, limit: end, depth: depth + 1)
    }
}
