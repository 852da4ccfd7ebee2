/// The encoder that `superEncoder()` returns.
///
/// Its slot holds a nil placeholder from the moment it is created, so the entry has a value even if the superclass
/// encodes nothing; the first request for a container removes the placeholder and writes the real value instead.
final class BinarySuperEncoder: Encoder {
    private let slotEncoder: BinaryEncoder
    private let key: any CodingKey
    private var placeholderPending = true

    init(slot: BinaryEncoder, key: some CodingKey) {
        slotEncoder = slot
        self.key = key
    }

    var codingPath: [any CodingKey] {
        slotEncoder.state.codingPath(depth: slotEncoder.depth - 1, appending: key)
    }

    var userInfo: [CodingUserInfoKey: Any] {
        [:]
    }

    /// The slot's encoder, with the placeholder gone and the coding path pointing at this slot again.
    private func claim() -> BinaryEncoder {
        let state = slotEncoder.state
        if placeholderPending {
            placeholderPending = false
            state.removePlaceholder(slot: slotEncoder.slot, level: slotEncoder.level)
        }
        state.enter(key, atDepth: slotEncoder.depth - 1)
        return slotEncoder
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        claim().container(keyedBy: type)
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        claim().unkeyedContainer()
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        claim().singleValueContainer()
    }
}
