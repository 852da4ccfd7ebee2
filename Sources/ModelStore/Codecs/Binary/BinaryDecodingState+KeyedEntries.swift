/// What ``BinaryKeyedDecodingContainer`` does, as methods of the state that take the container's bounds and depth,
/// so the container itself only holds its ``BinaryKeyedDecodingCell``.
extension BinaryDecodingState {
    /// Where the value for `key` starts, or nil if the container has no such key.
    @inline(__always)
    func findEntry(_ key: some CodingKey, in bounds: BinaryReader.ContainerBounds, depth: Int) throws -> Int? {
        if let position = valuePosition(of: key, in: bounds, depth: depth) {
            return position
        }
        // A miss is either an absent key or a damaged container; tell them apart before answering.
        try validateKeyedContainer(bounds, depth: depth)
        return nil
    }

    /// Where the value for `key` starts; throws `keyNotFound` if the container has no such key.
    @inline(__always)
    func requireEntry(_ key: some CodingKey, in bounds: BinaryReader.ContainerBounds, depth: Int) throws -> Int {
        guard let position = try findEntry(key, in: bounds, depth: depth) else {
            throw keyNotFound(key, depth: depth)
        }
        return position
    }

    private func keyNotFound(_ key: some CodingKey, depth: Int) -> DecodingError {
        .keyNotFound(key, .init(
            codingPath: codingPath(depth: depth),
            debugDescription: "No value associated with key \(key.stringValue)."
        ))
    }

    func isNilEntry(at position: Int, in bounds: BinaryReader.ContainerBounds) -> Bool {
        (try? reader.tag(at: position, limit: bounds.bodyEnd)) == BinaryFormat.Tag.null
    }

    /// Reads the primitive stored under `key`.
    @inline(__always)
    func decodeEntry<Value: BinaryPrimitive>(
        _ type: Value.Type,
        forKey key: some CodingKey,
        in bounds: BinaryReader.ContainerBounds,
        depth: Int
    ) throws -> Value {
        var position = try requireEntry(key, in: bounds, depth: depth)
        let value = try decodePrimitive(type, at: &position, limit: bounds.bodyEnd, depth: depth, key: key)
        rememberEntryEnd(position, in: bounds, depth: depth)
        return value
    }

    /// Reads the primitive stored under `key`, or returns nil if the key is absent or holds nil.
    @inline(__always)
    func decodeEntryIfPresent<Value: BinaryPrimitive>(
        _ type: Value.Type,
        forKey key: some CodingKey,
        in bounds: BinaryReader.ContainerBounds,
        depth: Int
    ) throws -> Value? {
        guard var position = try findEntry(key, in: bounds, depth: depth), !isNilEntry(at: position, in: bounds)
        else { return nil }
        let value = try decodePrimitive(type, at: &position, limit: bounds.bodyEnd, depth: depth, key: key)
        rememberEntryEnd(position, in: bounds, depth: depth)
        return value
    }

    /// Decodes any value stored under `key`.
    func decodeEntry<Value: Decodable>(
        _ type: Value.Type,
        forKey key: some CodingKey,
        in bounds: BinaryReader.ContainerBounds,
        depth: Int
    ) throws -> Value {
        var position = try requireEntry(key, in: bounds, depth: depth)
        let value = try decode(type, at: &position, limit: bounds.bodyEnd, depth: depth, key: key)
        rememberEntryEnd(position, in: bounds, depth: depth)
        return value
    }

    /// Decodes any value stored under `key`, or returns nil if the key is absent or holds nil.
    func decodeEntryIfPresent<Value: Decodable>(
        _ type: Value.Type,
        forKey key: some CodingKey,
        in bounds: BinaryReader.ContainerBounds,
        depth: Int
    ) throws -> Value? {
        guard var position = try findEntry(key, in: bounds, depth: depth), !isNilEntry(at: position, in: bounds)
        else { return nil }
        let value = try decode(type, at: &position, limit: bounds.bodyEnd, depth: depth, key: key)
        rememberEntryEnd(position, in: bounds, depth: depth)
        return value
    }

    /// A decoder for the value under `key`, which is read only when the caller asks for a container.
    func entryDecoder(
        forKey key: some CodingKey,
        in bounds: BinaryReader.ContainerBounds,
        depth: Int
    ) throws -> BinaryDecoder {
        let position = try requireEntry(key, in: bounds, depth: depth)
        try checkDepth(depth + 1, at: position)
        let end: Int
        do {
            end = try reader.skip(at: position, limit: bounds.bodyEnd)
        } catch {
            throw error.decodingError(Any.self, codingPath: codingPath(depth: depth, appending: key))
        }
        enter(key, atDepth: depth)
        return BinaryDecoder(state: self, position: position, limit: end, depth: depth + 1)
    }

    /// The keys of the container that `Key` understands, in stored order. A damaged container yields the keys
    /// before the damage; decoding from it then throws.
    func entryKeys<Key: CodingKey>(_: Key.Type, in bounds: BinaryReader.ContainerBounds) -> [Key] {
        var keys: [Key] = []
        keys.reserveCapacity(bounds.count)
        forEachEntry(in: bounds) { entry in
            if let name = reader.keyString(start: entry.keyStart, length: entry.keyLength),
                let key = Key(stringValue: name)
            {
                keys.append(key)
            }
        }
        return keys
    }
}
