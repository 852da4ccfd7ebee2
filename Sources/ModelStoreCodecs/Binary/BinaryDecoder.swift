/// The `Decoder` handed to a model's `init(from:)`: one stored value, read lazily when a container is requested.
///
/// A small struct (its position and limit are 32-bit, payloads are at most 4 GiB) so that passing it as
/// `any Decoder` fits the existential's inline buffer instead of allocating a box per nested value.
struct BinaryDecoder: Decoder {
    let state: BinaryDecodingState
    private let start: UInt32
    private let end: UInt32
    /// The coding-path depth of this value.
    let depth: Int

    /// - Parameters:
    ///   - position: Where the value's tag is.
    ///   - limit: Where the value ends; nothing past it belongs to the value.
    init(state: BinaryDecodingState, position: Int, limit: Int, depth: Int) {
        self.state = state
        start = UInt32(truncatingIfNeeded: position)
        end = UInt32(truncatingIfNeeded: limit)
        self.depth = depth
    }

    var position: Int { Int(start) }
    var limit: Int { Int(end) }

    var codingPath: [any CodingKey] {
        state.codingPath(depth: depth)
    }

    var userInfo: [CodingUserInfoKey: Any] {
        [:]
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        let bounds = try state.keyedContainer(at: position, limit: limit, depth: depth)
        // The first lookup then tries the first entry straight away.
        state.rememberEntryEnd(bounds.bodyStart, in: bounds, depth: depth)
        return state.makeKeyedContainer(Key.self, bounds: bounds, depth: depth)
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let bounds = try state.unkeyedContainer(at: position, limit: limit, depth: depth)
        return BinaryUnkeyedDecodingContainer(state: state, bounds: bounds, depth: depth)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        BinarySingleValueDecodingContainer(decoder: self)
    }
}
