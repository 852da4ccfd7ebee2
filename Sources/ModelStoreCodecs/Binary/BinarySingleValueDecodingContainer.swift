/// Reads the one value a decoder stands for.
struct BinarySingleValueDecodingContainer: SingleValueDecodingContainer {
    let decoder: BinaryDecoder

    var codingPath: [any CodingKey] {
        decoder.codingPath
    }

    private func decodePrimitive<Value: BinaryPrimitive>(_ type: Value.Type) throws -> Value {
        try decoder.state.decodePrimitive(type, at: decoder.position, limit: decoder.limit, depth: decoder.depth)
    }

    func decodeNil() -> Bool {
        (try? decoder.state.reader.tag(at: decoder.position, limit: decoder.limit)) == BinaryFormat.Tag.null
    }

    func decode(_ type: Bool.Type) throws -> Bool { try decodePrimitive(type) }
    func decode(_ type: String.Type) throws -> String { try decodePrimitive(type) }
    func decode(_ type: Double.Type) throws -> Double { try decodePrimitive(type) }
    func decode(_ type: Float.Type) throws -> Float { try decodePrimitive(type) }
    func decode(_ type: Int.Type) throws -> Int { try decodePrimitive(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try decodePrimitive(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try decodePrimitive(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try decodePrimitive(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try decodePrimitive(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try decodePrimitive(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try decodePrimitive(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try decodePrimitive(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try decodePrimitive(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try decodePrimitive(type) }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    func decode(_ type: Int128.Type) throws -> Int128 { try decodePrimitive(type) }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    func decode(_ type: UInt128.Type) throws -> UInt128 { try decodePrimitive(type) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try decoder.state.decode(type, at: decoder.position, limit: decoder.limit, depth: decoder.depth)
    }
}
