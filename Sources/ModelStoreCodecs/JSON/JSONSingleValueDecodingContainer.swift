/// Reads the one value a decoder holds.
struct JSONSingleValueDecodingContainer: SingleValueDecodingContainer {
    let state: JSONDecodingState
    /// The value's tape index.
    let value: UInt32
    /// The coding-path depth of the value.
    let depth: UInt32

    var codingPath: [any CodingKey] {
        state.codingPath(value: value, depth: Int(depth))
    }

    func decodeNil() -> Bool {
        state.kind(at: Int(value)) == .null
    }

    private func decodeScalar<Value: JSONScalar>(_ type: Value.Type) throws -> Value {
        do throws(JSONValueError) {
            return try Value.read(from: state, at: Int(value))
        } catch {
            throw state.fail(error, type, codingPath: codingPath)
        }
    }

    func decode(_ type: Bool.Type) throws -> Bool { try decodeScalar(type) }
    func decode(_ type: String.Type) throws -> String { try decodeScalar(type) }
    func decode(_ type: Double.Type) throws -> Double { try decodeScalar(type) }
    func decode(_ type: Float.Type) throws -> Float { try decodeScalar(type) }
    func decode(_ type: Int.Type) throws -> Int { try decodeScalar(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try decodeScalar(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try decodeScalar(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try decodeScalar(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try decodeScalar(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try decodeScalar(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try decodeScalar(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try decodeScalar(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try decodeScalar(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try decodeScalar(type) }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    func decode(_ type: Int128.Type) throws -> Int128 { try decodeScalar(type) }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    func decode(_ type: UInt128.Type) throws -> UInt128 { try decodeScalar(type) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try state.decode(type, at: Int(value), depth: Int(depth))
    }
}
