/// The `Encoder` handed to a model's `encode(to:)`: one value slot, starting at `slot` in the output.
///
/// A small struct (its level and depth are 32-bit) so that passing it as `any Encoder` fits the existential's
/// inline buffer instead of allocating a box per nested value.
struct BinaryEncoder: Encoder {
    let state: BinaryEncodingState
    /// Where this value's bytes start.
    let slot: Int
    private let storedLevel: Int32
    private let storedDepth: Int32

    /// - Parameters:
    ///   - level: How many containers are open around the slot; a container opened for it goes at this index.
    ///   - depth: The coding-path depth of this value.
    init(state: BinaryEncodingState, slot: Int, level: Int, depth: Int) {
        self.state = state
        self.slot = slot
        storedLevel = Int32(truncatingIfNeeded: level)
        storedDepth = Int32(truncatingIfNeeded: depth)
    }

    var level: Int { Int(storedLevel) }
    var depth: Int { Int(storedDepth) }

    var codingPath: [any CodingKey] {
        state.codingPath(depth: depth)
    }

    var userInfo: [CodingUserInfoKey: Any] {
        [:]
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let header = state.openContainer(BinaryFormat.Tag.keyed, slot: slot, level: level, depth: depth)
        return state.makeKeyedContainer(Key.self, header: header, level: level, depth: depth)
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let header = state.openContainer(BinaryFormat.Tag.unkeyed, slot: slot, level: level, depth: depth)
        return BinaryUnkeyedEncodingContainer(state: state, header: header, level: level, depth: depth)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        BinarySingleValueEncodingContainer(encoder: self)
    }
}
