/// What ``BinaryKeyedDecodingContainer`` does, as methods of the state that take the container's place, so the
/// container itself only holds its cell.
extension BinaryDecodingState {
    /// Which stored keyed container a ``BinaryKeyedDecodingContainer`` reads.
    struct KeyedPlace {
        var bounds: BinaryReader.ContainerBounds
        /// The coding-path depth of the container; its values are one deeper.
        var depth: Int
    }

    /// The cell of every ``BinaryKeyedDecodingContainer``, whatever its key type.
    typealias KeyedContainerCell = BinaryContainerCell<BinaryDecodingState, KeyedPlace>

    /// Where the value for `key` starts, or nil if the container has no such key.
    @inline(__always)
    func findEntry(_ key: some CodingKey, in place: KeyedPlace) throws -> Int? {
        if let position = valuePosition(of: key, in: place.bounds, depth: place.depth) {
            return position
        }
        // A miss is either an absent key or a damaged container; tell them apart before answering.
        try validateKeyedContainer(place.bounds, depth: place.depth)
        return nil
    }

    /// Where the value for `key` starts; throws `keyNotFound` if the container has no such key.
    @inline(__always)
    func requireEntry(_ key: some CodingKey, in place: KeyedPlace) throws -> Int {
        guard let position = try findEntry(key, in: place) else {
            throw keyNotFound(key, depth: place.depth)
        }
        return position
    }

    private func keyNotFound(_ key: some CodingKey, depth: Int) -> DecodingError {
        .keyNotFound(key, .init(
            codingPath: codingPath(depth: depth),
            debugDescription: "No value associated with key \(key.stringValue)."
        ))
    }

    func isNilEntry(at position: Int, in place: KeyedPlace) -> Bool {
        (try? reader.tag(at: position, limit: place.bounds.bodyEnd)) == BinaryFormat.Tag.null
    }

    /// Reads the primitive stored under `key`.
    @inline(__always)
    func decodeEntry<Value: BinaryPrimitive>(
        _ type: Value.Type,
        forKey key: some CodingKey,
        in place: KeyedPlace
    ) throws -> Value {
        var position = try requireEntry(key, in: place)
        let value = try decodePrimitive(type, at: &position, limit: place.bounds.bodyEnd, depth: place.depth, key: key)
        rememberEntryEnd(position, in: place.bounds, depth: place.depth)
        return value
    }

    /// Reads the primitive stored under `key`, or returns nil if the key is absent or holds nil.
    @inline(__always)
    func decodeEntryIfPresent<Value: BinaryPrimitive>(
        _ type: Value.Type,
        forKey key: some CodingKey,
        in place: KeyedPlace
    ) throws -> Value? {
        guard var position = try findEntry(key, in: place), !isNilEntry(at: position, in: place)
        else { return nil }
        let value = try decodePrimitive(type, at: &position, limit: place.bounds.bodyEnd, depth: place.depth, key: key)
        rememberEntryEnd(position, in: place.bounds, depth: place.depth)
        return value
    }

    /// Decodes any value stored under `key`.
    func decodeEntry<Value: Decodable>(
        _ type: Value.Type,
        forKey key: some CodingKey,
        in place: KeyedPlace
    ) throws -> Value {
        var position = try requireEntry(key, in: place)
        let value = try decode(type, at: &position, limit: place.bounds.bodyEnd, depth: place.depth, key: key)
        rememberEntryEnd(position, in: place.bounds, depth: place.depth)
        return value
    }

    /// Decodes any value stored under `key`, or returns nil if the key is absent or holds nil.
    func decodeEntryIfPresent<Value: Decodable>(
        _ type: Value.Type,
        forKey key: some CodingKey,
        in place: KeyedPlace
    ) throws -> Value? {
        guard var position = try findEntry(key, in: place), !isNilEntry(at: position, in: place)
        else { return nil }
        let value = try decode(type, at: &position, limit: place.bounds.bodyEnd, depth: place.depth, key: key)
        rememberEntryEnd(position, in: place.bounds, depth: place.depth)
        return value
    }

    /// A decoder for the value under `key`, which is read only when the caller asks for a container.
    ///
    /// - Parameter absentIsNil: Whether a missing key gives a decoder for nil (as Foundation's `superDecoder` calls
    ///   do) instead of throwing `keyNotFound` (as its nested-container calls do).
    func entryDecoder(
        forKey key: some CodingKey,
        in place: KeyedPlace,
        absentIsNil: Bool = false
    ) throws -> any Decoder {
        guard let position = try findEntry(key, in: place) else {
            guard absentIsNil else { throw keyNotFound(key, depth: place.depth) }
            return BinaryNullDecoder(codingPath: codingPath(depth: place.depth, appending: key))
        }
        try checkDepth(place.depth + 1, at: position)
        let end: Int
        do {
            end = try reader.skip(at: position, limit: place.bounds.bodyEnd)
        } catch {
            throw error.decodingError(Any.self, codingPath: codingPath(depth: place.depth, appending: key))
        }
        enter(key, atDepth: place.depth)
        return BinaryDecoder(state: self, position: position, limit: end, depth: place.depth + 1)
    }

    /// The keys of the container that `Key` understands, in stored order. A damaged container yields the keys
    /// before the damage; decoding from it then throws.
    func entryKeys<Key: CodingKey>(_: Key.Type, in place: KeyedPlace) -> [Key] {
        var keys: [Key] = []
        keys.reserveCapacity(place.bounds.count)
        forEachEntry(in: place.bounds) { entry in
            if let name = reader.keyString(start: entry.keyStart, length: entry.keyLength),
                let key = Key(stringValue: name)
            {
                keys.append(key)
            }
        }
        return keys
    }
}
