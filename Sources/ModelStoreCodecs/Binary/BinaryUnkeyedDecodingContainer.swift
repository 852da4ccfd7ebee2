/// Reads the elements of one stored unkeyed container front to back.
struct BinaryUnkeyedDecodingContainer: UnkeyedDecodingContainer {
    let state: BinaryDecodingState
    private let bodyEnd: Int
    private let elementCount: Int
    /// The coding-path depth of this container; its elements are one deeper.
    private let depth: Int
    /// Where the next element's tag is.
    private var position: Int
    private(set) var currentIndex = 0

    init(state: BinaryDecodingState, bounds: BinaryReader.ContainerBounds, depth: Int) {
        self.state = state
        bodyEnd = bounds.bodyEnd
        elementCount = bounds.count
        self.depth = depth
        position = bounds.bodyStart
    }

    var codingPath: [any CodingKey] {
        state.codingPath(depth: depth)
    }

    var count: Int? {
        elementCount
    }

    var isAtEnd: Bool {
        currentIndex >= elementCount
    }

    private var currentKey: BinaryCodingKey {
        .index(currentIndex)
    }

    private func checkNotAtEnd(_ type: Any.Type) throws {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(type, .init(
                codingPath: state.codingPath(depth: depth, appending: currentKey),
                debugDescription: "Unkeyed container is at end."
            ))
        }
    }

    private mutating func decodePrimitive<Value: BinaryPrimitive>(_ type: Value.Type) throws -> Value {
        try checkNotAtEnd(type)
        let value = try state.decodePrimitive(type, at: &position, limit: bodyEnd, depth: depth, key: currentKey)
        currentIndex += 1
        return value
    }

    mutating func decodeNil() throws -> Bool {
        try checkNotAtEnd(Never?.self)
        guard (try? state.reader.tag(at: position, limit: bodyEnd)) == BinaryFormat.Tag.null else { return false }
        position += 1
        currentIndex += 1
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try decodePrimitive(type) }
    mutating func decode(_ type: String.Type) throws -> String { try decodePrimitive(type) }
    mutating func decode(_ type: Double.Type) throws -> Double { try decodePrimitive(type) }
    mutating func decode(_ type: Float.Type) throws -> Float { try decodePrimitive(type) }
    mutating func decode(_ type: Int.Type) throws -> Int { try decodePrimitive(type) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try decodePrimitive(type) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try decodePrimitive(type) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try decodePrimitive(type) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try decodePrimitive(type) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try decodePrimitive(type) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try decodePrimitive(type) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try decodePrimitive(type) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try decodePrimitive(type) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try decodePrimitive(type) }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    mutating func decode(_ type: Int128.Type) throws -> Int128 { try decodePrimitive(type) }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    mutating func decode(_ type: UInt128.Type) throws -> UInt128 { try decodePrimitive(type) }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try checkNotAtEnd(type)
        let value = try state.decode(type, at: &position, limit: bodyEnd, depth: depth, key: currentKey)
        currentIndex += 1
        return value
    }

    // MARK: - Optional values

    // Foundation's JSONDecoder counts an element read by decodeIfPresent even at the end of the container (its
    // currentIndex moves on and nil comes back); the standard library's default leaves currentIndex where it was.
    // These match JSON, so a model that counts elements this way behaves alike with either codec.

    mutating func decodeIfPresent(_ type: Bool.Type) throws -> Bool? { try ifPresent { try $0.decode(type) } }
    mutating func decodeIfPresent(_ type: String.Type) throws -> String? { try ifPresent { try $0.decode(type) } }
    mutating func decodeIfPresent(_ type: Double.Type) throws -> Double? { try ifPresent { try $0.decode(type) } }
    mutating func decodeIfPresent(_ type: Float.Type) throws -> Float? { try ifPresent { try $0.decode(type) } }
    mutating func decodeIfPresent(_ type: Int.Type) throws -> Int? { try ifPresent { try $0.decode(type) } }
    mutating func decodeIfPresent(_ type: Int8.Type) throws -> Int8? { try ifPresent { try $0.decode(type) } }
    mutating func decodeIfPresent(_ type: Int16.Type) throws -> Int16? { try ifPresent { try $0.decode(type) } }
    mutating func decodeIfPresent(_ type: Int32.Type) throws -> Int32? { try ifPresent { try $0.decode(type) } }
    mutating func decodeIfPresent(_ type: Int64.Type) throws -> Int64? { try ifPresent { try $0.decode(type) } }
    mutating func decodeIfPresent(_ type: UInt.Type) throws -> UInt? { try ifPresent { try $0.decode(type) } }
    mutating func decodeIfPresent(_ type: UInt8.Type) throws -> UInt8? { try ifPresent { try $0.decode(type) } }
    mutating func decodeIfPresent(_ type: UInt16.Type) throws -> UInt16? { try ifPresent { try $0.decode(type) } }
    mutating func decodeIfPresent(_ type: UInt32.Type) throws -> UInt32? { try ifPresent { try $0.decode(type) } }
    mutating func decodeIfPresent(_ type: UInt64.Type) throws -> UInt64? { try ifPresent { try $0.decode(type) } }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    mutating func decodeIfPresent(_ type: Int128.Type) throws -> Int128? { try ifPresent { try $0.decode(type) } }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    mutating func decodeIfPresent(_ type: UInt128.Type) throws -> UInt128? { try ifPresent { try $0.decode(type) } }

    mutating func decodeIfPresent<T: Decodable>(_ type: T.Type) throws -> T? {
        try ifPresent { try $0.decode(type) }
    }

    /// nil, counting the element, at the end of the container or for a stored nil; otherwise `decode`'s value.
    private mutating func ifPresent<Value>(_ decode: (inout Self) throws -> Value) throws -> Value? {
        guard !isAtEnd else {
            currentIndex += 1
            return nil
        }
        if try decodeNil() { return nil }
        return try decode(&self)
    }

    // MARK: - Nesting

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try nextDecoder(type).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try nextDecoder((any UnkeyedDecodingContainer).self).unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder {
        try nextDecoder((any Decoder).self)
    }

    /// A decoder for the next element, which counts as read even if the caller never asks it for anything.
    private mutating func nextDecoder(_ type: Any.Type) throws -> BinaryDecoder {
        try checkNotAtEnd(type)
        try state.checkDepth(depth + 1, at: position)
        let start = position
        do {
            position = try state.reader.skip(at: start, limit: bodyEnd)
        } catch {
            throw error.decodingError(type, codingPath: state.codingPath(depth: depth, appending: currentKey))
        }
        state.enter(currentKey, atDepth: depth)
        currentIndex += 1
        return BinaryDecoder(state: state, position: start, limit: position, depth: depth + 1)
    }
}
