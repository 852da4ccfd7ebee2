/// The `Decoder` handed to a model's `init(from:)`: one value on the tape, read when a container is requested.
///
/// A small struct, so passing it as `any Decoder` fits the existential's inline buffer instead of allocating a box
/// per nested value.
struct JSONValueDecoder: Decoder {
    let state: JSONDecodingState
    /// The value's tape index.
    let value: UInt32
    /// The coding-path depth of this value.
    let depth: UInt32

    init(state: JSONDecodingState, value: UInt32, depth: Int) {
        self.state = state
        self.value = value
        self.depth = UInt32(truncatingIfNeeded: depth)
    }

    var codingPath: [any CodingKey] {
        state.codingPath(value: value, depth: Int(depth))
    }

    /// Foundation passes its decoder's `userInfo`; the fast decoder is only used when that is empty.
    var userInfo: [CodingUserInfoKey: Any] {
        [:]
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        try expect(.object, [String: Any].self)
        return state.makeKeyedContainer(Key.self, object: value, depth: depth)
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try expect(.array, [Any].self)
        return JSONUnkeyedDecodingContainer(state: state, array: value, depth: depth)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        JSONSingleValueDecodingContainer(state: state, value: value, depth: depth)
    }

    private func expect(_ kind: JSONKind, _ type: Any.Type) throws {
        do throws(JSONValueError) {
            _ = try state.expect(kind, at: Int(value))
        } catch {
            throw state.fail(error, type, codingPath: codingPath)
        }
    }
}
