/// The state that the decoder and all its containers share during one decode call.
///
/// Decoding only reads, so containers can be used in any order; the state holds what is worth remembering between
/// lookups (where the next key probably is, indexes of large keyed containers) and the current coding path.
final class BinaryDecodingState {
    // Every access to these properties is short and none calls back into the state while it lasts, so the dynamic
    // exclusivity checks Swift would otherwise make on each access (in the encoder they took a quarter of the time)
    // are turned off.

    /// The borrowed payload. ``end(_:)`` swaps it for an empty reader when the decode call returns, so a decoder
    /// that a model smuggled out can only throw, never touch memory that is gone.
    @exclusivity(unchecked) private(set) var reader: BinaryReader
    /// Keys from the root to the value being decoded; entries past a container's depth may be stale.
    @exclusivity(unchecked) private var path = BinaryCodingPath()
    /// How many `init(from:)` calls are in progress; hostile data for a recursive model could otherwise nest until
    /// the stack overflows.
    @exclusivity(unchecked) private var nesting = 0
    /// Per coding-path depth: the keyed container last searched there and where its next entry starts.
    @exclusivity(unchecked) var hints = BinaryKeyHints()
    /// Hash indexes of large keyed containers, by body start, built on their first out-of-order lookup.
    @exclusivity(unchecked) var indexes: [Int: BinaryKeyIndex] = [:]
    /// Keyed containers handed out before, for reuse once models drop them.
    @exclusivity(unchecked) private var keyedContainers = BinaryContainerBoxCache<KeyedContainerCell>()
    /// Whether a decode call is in progress: kept containers are only handed out (and so activated) during one.
    @exclusivity(unchecked) private var isServingCall = false

    private init() {
        reader = .empty
    }

    deinit {
        hints.deallocate()
        // Kept containers read their cell without retaining it; one a model still holds must keep a valid cell.
        keyedContainers.handOverContainersInUse()
    }

    // MARK: - Lifetime

    /// Each thread keeps the state of its last decode call, so the next call allocates neither it nor its hints.
    private static let spare = ThreadSpare<BinaryDecodingState>()

    /// A state for one decode call that reads `reader`: the calling thread's spare, or a new one.
    static func start(reading reader: BinaryReader) -> BinaryDecodingState {
        let state = spare.take() ?? BinaryDecodingState()
        state.reader = reader
        state.isServingCall = true
        return state
    }

    /// Ends the decode call that `state` served. The payload becomes unreadable through it; if no decoder or
    /// container the model kept still refers to it, it is cleared and kept as the thread's spare.
    static func end(_ state: inout BinaryDecodingState) {
        state.reader = .empty
        state.isServingCall = false
        // Kept containers do not retain the state, so none may be used once the call is over.
        state.keyedContainers.forEachCell { $0.deactivate() }
        guard isKnownUniquelyReferenced(&state) else {
            // A model kept a decoder: it can only throw now, and the indexes are not needed for that.
            state.indexes = [:]
            return
        }
        state.path.removeAll()
        state.nesting = 0
        // Positions from this payload must never be tried in the next one.
        state.hints.removeAll()
        if !state.indexes.isEmpty {
            state.indexes = [:]
        }
        spare.putBack(state)
    }

    /// A keyed container for the stored container `bounds` at `depth`: one handed out before that nothing uses
    /// any more, or a new one.
    func makeKeyedContainer<Key: CodingKey>(
        _: Key.Type,
        bounds: BinaryReader.ContainerBounds,
        depth: Int
    ) -> KeyedDecodingContainer<Key> {
        let place = KeyedPlace(bounds: bounds, depth: depth)
        if isServingCall, let index = keyedContainers.reusableIndex(keyType: Key.self) {
            keyedContainers.cell(at: index).activate(at: place)
            return keyedContainers.container(at: index)
        }
        return makeNewKeyedContainer(Key.self, at: place)
    }

    /// A new keyed container, kept for reuse if the cache has room. Apart from ``makeKeyedContainer(_:bounds:depth:)``
    /// so that the metadata lookups a new container needs are not made on the path that reuses one.
    @inline(never)
    private func makeNewKeyedContainer<Key: CodingKey>(
        _: Key.Type,
        at place: KeyedPlace
    ) -> KeyedDecodingContainer<Key> {
        let cell = KeyedContainerCell(state: self, place: place)
        if isServingCall, keyedContainers.hasRoom {
            // The cache owns the cell, so the container need not retain it.
            let container = KeyedDecodingContainer(BinaryKeyedDecodingContainer<Key>(cell: cell, retaining: false))
            if keyedContainers.keep(container, cell: cell, keyType: Key.self) {
                return container
            }
        }
        cell.retainState()
        return KeyedDecodingContainer(BinaryKeyedDecodingContainer<Key>(cell: cell, retaining: true))
    }

    // MARK: - Coding path

    func codingPath(depth: Int) -> [any CodingKey] {
        path.prefix(depth: depth)
    }

    func codingPath(depth: Int, appending key: some CodingKey) -> [any CodingKey] {
        path.prefix(depth: depth, appending: key)
    }

    /// Records that the value being entered at `depth` is stored under `key`.
    func enter(_ key: some CodingKey, atDepth depth: Int) {
        path.enter(key, atDepth: depth)
    }

    /// Throws unless a container may open at `depth`; `nestedContainer` calls in a loop need no `init(from:)`.
    func checkDepth(_ depth: Int, at position: Int) throws {
        guard depth <= BinaryFormat.maximumDepth else {
            throw BinaryReadError.tooDeep(at: position).decodingError(Any.self, codingPath: codingPath(depth: depth))
        }
    }

    // MARK: - Values

    // Keyed and unkeyed containers pass the value's key; single-value containers have none. These come in pairs
    // rather than taking an optional key because `Optional<Key>` for a generic key costs a metadata lookup per call.

    /// Reads a primitive stored under `key` at `position` and moves `position` past it.
    func decodePrimitive<Value: BinaryPrimitive>(
        _ type: Value.Type,
        at position: inout Int,
        limit: Int,
        depth: Int,
        key: some CodingKey
    ) throws -> Value {
        do {
            return try Value.read(from: reader, at: &position, limit: limit)
        } catch {
            throw error.decodingError(type, codingPath: codingPath(depth: depth, appending: key))
        }
    }

    /// Reads the primitive a single-value container at `depth` holds.
    func decodePrimitive<Value: BinaryPrimitive>(
        _ type: Value.Type,
        at position: Int,
        limit: Int,
        depth: Int
    ) throws -> Value {
        var position = position
        do {
            return try Value.read(from: reader, at: &position, limit: limit)
        } catch {
            throw error.decodingError(type, codingPath: codingPath(depth: depth))
        }
    }

    /// Decodes any value stored under `key` at `position` and moves `position` past it.
    ///
    /// - Parameters:
    ///   - limit: The end of the container holding the value.
    ///   - depth: The coding-path depth of that container.
    func decode<Value: Decodable>(
        _ type: Value.Type,
        at position: inout Int,
        limit: Int,
        depth: Int,
        key: some CodingKey
    ) throws -> Value {
        let start = position
        let end: Int
        let tag: UInt8
        let kind = BinaryFastPath(type)
        do {
            tag = try reader.tag(at: start, limit: limit)
            if kind.reads(tag) && !kind.isArray {
                return try decodeFastPath(kind, as: type, at: &position, limit: limit)
            }
            end = try reader.skip(at: start, limit: limit)
        } catch {
            throw error.decodingError(type, codingPath: codingPath(depth: depth, appending: key))
        }
        enter(key, atDepth: depth)
        if kind.isArray && kind.reads(tag) {
            return try decodeArrayFastPath(kind, as: type, at: &position, limit: limit, depth: depth + 1)
        }
        let value = try decodeNested(type, start: start, end: end, depth: depth + 1)
        position = end
        return value
    }

    /// Decodes the value a single-value container at `depth` holds; it stays at the same coding-path depth.
    func decode<Value: Decodable>(_ type: Value.Type, at position: Int, limit: Int, depth: Int) throws -> Value {
        var position = position
        let end: Int
        let tag: UInt8
        let kind = BinaryFastPath(type)
        do {
            tag = try reader.tag(at: position, limit: limit)
            if kind.reads(tag) && !kind.isArray {
                return try decodeFastPath(kind, as: type, at: &position, limit: limit)
            }
            end = try reader.skip(at: position, limit: limit)
        } catch {
            throw error.decodingError(type, codingPath: codingPath(depth: depth))
        }
        if kind.isArray && kind.reads(tag) {
            return try decodeArrayFastPath(kind, as: type, at: &position, limit: limit, depth: depth)
        }
        return try decodeNested(type, start: position, end: end, depth: depth)
    }

    /// Runs `Value.init(from:)` on the value in `start..<end`.
    private func decodeNested<Value: Decodable>(_ type: Value.Type, start: Int, end: Int, depth: Int) throws -> Value {
        nesting += 1
        defer { nesting -= 1 }
        guard nesting <= BinaryFormat.maximumDepth, depth <= BinaryFormat.maximumDepth else {
            throw BinaryReadError.tooDeep(at: start).decodingError(type, codingPath: codingPath(depth: depth))
        }
        // The value may read only its own bytes, so a corrupt inner length cannot reach into its siblings.
        return try Value(from: BinaryDecoder(state: self, position: start, limit: end, depth: depth))
    }

    // MARK: - Containers

    /// Opens the keyed container at `position`. Its entries are checked lazily: lookups that hit need no check, and
    /// a miss runs ``validateKeyedContainer(_:depth:)`` to tell an absent key from a damaged container.
    func keyedContainer(at position: Int, limit: Int, depth: Int) throws -> BinaryReader.ContainerBounds {
        do {
            return try reader.container(BinaryFormat.Tag.keyed, at: position, limit: limit)
        } catch {
            throw error.decodingError([String: Any].self, codingPath: codingPath(depth: depth))
        }
    }

    /// Throws unless the keyed container's entries tile its body exactly and match its count.
    func validateKeyedContainer(_ bounds: BinaryReader.ContainerBounds, depth: Int) throws {
        do throws(BinaryReadError) {
            try checkEntries(of: bounds)
        } catch {
            throw error.decodingError([String: Any].self, codingPath: codingPath(depth: depth))
        }
    }

    func checkEntries(of bounds: BinaryReader.ContainerBounds) throws(BinaryReadError) {
        var cursor = bounds.bodyStart
        for _ in 0..<bounds.count {
            _ = try reader.key(at: &cursor, limit: bounds.bodyEnd)
            cursor = try reader.skip(at: cursor, limit: bounds.bodyEnd)
        }
        guard cursor == bounds.bodyEnd else {
            throw .malformed("keyed container's entries do not match its length and count", at: bounds.bodyStart)
        }
    }

    /// Opens the unkeyed container at `position`. Its elements are checked as they are read.
    func unkeyedContainer(at position: Int, limit: Int, depth: Int) throws -> BinaryReader.ContainerBounds {
        do {
            return try reader.container(BinaryFormat.Tag.unkeyed, at: position, limit: limit)
        } catch {
            throw error.decodingError([Any].self, codingPath: codingPath(depth: depth))
        }
    }
}
