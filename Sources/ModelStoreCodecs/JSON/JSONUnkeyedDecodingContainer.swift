/// Reads the elements of one JSON array front to back, with the semantics of Foundation's unkeyed container.
///
/// Of note, as in Foundation: `decodeNil()` moves on only past a null; `decodeIfPresent` moves on even at the end,
/// where it returns nil, so `currentIndex` can pass `count`.
struct JSONUnkeyedDecodingContainer: UnkeyedDecodingContainer {
    // Three words, so the `any UnkeyedDecodingContainer` existential holds it inline without a box.
    let state: JSONDecodingState
    /// The array's tape index.
    private let array: UInt32
    /// The tape index of the element at `currentIndex`, while there is one.
    private var cursor: UInt32
    private var index: Int32 = 0
    /// The coding-path depth of this container; its elements are one deeper.
    private let depth: UInt32

    init(state: JSONDecodingState, array: UInt32, depth: UInt32) {
        self.state = state
        self.array = array
        cursor = array &+ 1
        self.depth = depth
    }

    var codingPath: [any CodingKey] {
        state.codingPath(value: array, depth: Int(depth))
    }

    var count: Int? {
        Int(state.tape[Int(array)].count)
    }

    var isAtEnd: Bool {
        Int(index) >= Int(state.tape[Int(array)].count)
    }

    var currentIndex: Int {
        Int(index)
    }

    private var currentKey: JSONCodingKey {
        .index(Int(index))
    }

    /// Moves past the current element, or only counts when at the end.
    private mutating func advance() {
        if !isAtEnd {
            cursor = UInt32(truncatingIfNeeded: state.tape.next(after: Int(cursor)))
        }
        guard index < Int32.max else {
            // Two billion reads past the end: not worth a wider field, but never wrap around.
            state.deferToFoundation()
            return
        }
        index &+= 1
    }

    private func checkNotAtEnd(_ type: Any.Type) throws {
        guard !isAtEnd else {
            let path = state.codingPath(value: array, depth: Int(depth), appending: currentKey)
            throw state.atEnd(type, codingPath: path)
        }
    }

    private mutating func decodeScalar<Value: JSONScalar>(_ type: Value.Type) throws -> Value {
        try checkNotAtEnd(type)
        let value = try state.decodeScalar(type, at: Int(cursor), depth: Int(depth), key: currentKey, parent: array)
        advance()
        return value
    }

    private mutating func decodeScalarIfPresent<Value: JSONScalar>(_ type: Value.Type) throws -> Value? {
        guard !isAtEnd, state.kind(at: Int(cursor)) != .null else {
            advance()
            return nil
        }
        let value = try state.decodeScalar(type, at: Int(cursor), depth: Int(depth), key: currentKey, parent: array)
        advance()
        return value
    }

    // MARK: - Decoding

    mutating func decodeNil() throws -> Bool {
        try checkNotAtEnd(Never.self)
        guard state.kind(at: Int(cursor)) == .null else { return false }
        advance()
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try decodeScalar(type) }
    mutating func decode(_ type: String.Type) throws -> String { try decodeScalar(type) }
    mutating func decode(_ type: Double.Type) throws -> Double { try decodeScalar(type) }
    mutating func decode(_ type: Float.Type) throws -> Float { try decodeScalar(type) }
    mutating func decode(_ type: Int.Type) throws -> Int { try decodeScalar(type) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try decodeScalar(type) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try decodeScalar(type) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try decodeScalar(type) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try decodeScalar(type) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try decodeScalar(type) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try decodeScalar(type) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try decodeScalar(type) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try decodeScalar(type) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try decodeScalar(type) }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    mutating func decode(_ type: Int128.Type) throws -> Int128 { try decodeScalar(type) }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    mutating func decode(_ type: UInt128.Type) throws -> UInt128 { try decodeScalar(type) }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try checkNotAtEnd(type)
        let value = try state.decode(type, at: Int(cursor), depth: Int(depth), key: currentKey, parent: array)
        advance()
        return value
    }

    mutating func decodeIfPresent(_ type: Bool.Type) throws -> Bool? { try decodeScalarIfPresent(type) }
    mutating func decodeIfPresent(_ type: String.Type) throws -> String? { try decodeScalarIfPresent(type) }
    mutating func decodeIfPresent(_ type: Double.Type) throws -> Double? { try decodeScalarIfPresent(type) }
    mutating func decodeIfPresent(_ type: Float.Type) throws -> Float? { try decodeScalarIfPresent(type) }
    mutating func decodeIfPresent(_ type: Int.Type) throws -> Int? { try decodeScalarIfPresent(type) }
    mutating func decodeIfPresent(_ type: Int8.Type) throws -> Int8? { try decodeScalarIfPresent(type) }
    mutating func decodeIfPresent(_ type: Int16.Type) throws -> Int16? { try decodeScalarIfPresent(type) }
    mutating func decodeIfPresent(_ type: Int32.Type) throws -> Int32? { try decodeScalarIfPresent(type) }
    mutating func decodeIfPresent(_ type: Int64.Type) throws -> Int64? { try decodeScalarIfPresent(type) }
    mutating func decodeIfPresent(_ type: UInt.Type) throws -> UInt? { try decodeScalarIfPresent(type) }
    mutating func decodeIfPresent(_ type: UInt8.Type) throws -> UInt8? { try decodeScalarIfPresent(type) }
    mutating func decodeIfPresent(_ type: UInt16.Type) throws -> UInt16? { try decodeScalarIfPresent(type) }
    mutating func decodeIfPresent(_ type: UInt32.Type) throws -> UInt32? { try decodeScalarIfPresent(type) }
    mutating func decodeIfPresent(_ type: UInt64.Type) throws -> UInt64? { try decodeScalarIfPresent(type) }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    mutating func decodeIfPresent(_ type: Int128.Type) throws -> Int128? { try decodeScalarIfPresent(type) }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    mutating func decodeIfPresent(_ type: UInt128.Type) throws -> UInt128? { try decodeScalarIfPresent(type) }

    mutating func decodeIfPresent<T: Decodable>(_ type: T.Type) throws -> T? {
        guard !isAtEnd, state.kind(at: Int(cursor)) != .null else {
            advance()
            return nil
        }
        let value = try state.decode(type, at: Int(cursor), depth: Int(depth), key: currentKey, parent: array)
        advance()
        return value
    }

    // MARK: - Nesting

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try checkNotAtEnd(KeyedDecodingContainer<NestedKey>.self)
        let container = try elementDecoder().container(keyedBy: type)
        advance()
        return container
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try checkNotAtEnd((any UnkeyedDecodingContainer).self)
        let container = try elementDecoder().unkeyedContainer()
        advance()
        return container
    }

    mutating func superDecoder() throws -> any Decoder {
        try checkNotAtEnd((any Decoder).self)
        let decoder = elementDecoder()
        advance()
        return decoder
    }

    private func elementDecoder() -> JSONValueDecoder {
        state.path.enter(currentKey, atDepth: Int(depth), value: cursor, parent: array)
        return JSONValueDecoder(state: state, value: cursor, depth: Int(depth) &+ 1)
    }
}
