import Foundation

/// Walks a model through its `encode(to:)` without writing anything, and throws if it nests deeper than a limit.
///
/// Foundation's `JSONEncoder` and `PropertyListEncoder` recurse once per nested value with no limit of their own,
/// so a deep enough model (10,000 nested arrays, a recursive enum thousands deep, a long chain of single-value
/// wrappers) overflows the stack and crashes the process. ModelStore runs this probe before it hands a model to
/// either encoder, so such a model throws `EncodingError.invalidValue` instead. It counts what ModelStore's own
/// encoders count (see ``JSONFastEncoder/maximumDepth``): nested arrays and dictionaries, and values that encode
/// themselves one inside the other, single-value wrappers included.
///
/// Errors the model throws are ignored here: the encoder that runs next throws them again, as its own.
enum EncodingDepthProbe {
    /// Throws `EncodingError.invalidValue` if `value` nests deeper than `limit`.
    static func check<Value: Encodable>(_ value: Value, limit: Int = JSONFastEncoder.maximumDepth) throws {
        let state = ProbeState(limit: limit)
        do {
            try value.encode(to: ProbeEncoder(state: state, level: 1, containers: 0, codingPath: []))
        } catch {
            // A model that catches the probe's error and carries on is still too deep.
        }
        if let tooDeep = state.tooDeep { throw tooDeep }
    }

    /// Whether `Value` is one of the scalars ModelStore's JSON encoder writes without counting a level (see
    /// `JSONEncodingState.writeKnownValue`), so both count alike.
    static func isScalar<Value>(_: Value.Type) -> Bool {
        Value.self == String.self || Value.self == Int.self || Value.self == Double.self || Value.self == Bool.self
            || Value.self == Date.self || Value.self == Data.self || Value.self == URL.self
            || Value.self == Decimal.self
    }
}

/// The probe's one piece of shared state: the first error it met.
private final class ProbeState {
    let limit: Int
    var tooDeep: EncodingError?

    init(limit: Int) {
        self.limit = limit
    }

    func fail(_ codingPath: [any CodingKey], _ value: Any) -> EncodingError {
        let error = EncodingError.invalidValue(value, .init(
            codingPath: codingPath,
            debugDescription: "Values nest deeper than \(limit) levels; JSON readers, Foundation's included, stop at 512."
        ))
        if tooDeep == nil { tooDeep = error }
        return error
    }

    /// Walks `value` as the value at `level`, inside `containers` open arrays and dictionaries.
    func walk<Value: Encodable>(
        _ value: Value,
        level: Int,
        containers: Int,
        codingPath: [any CodingKey]
    ) throws {
        guard !EncodingDepthProbe.isScalar(Value.self) else { return }
        guard level <= limit else { throw fail(codingPath, value) }
        try value.encode(to: ProbeEncoder(state: self, level: level, containers: containers, codingPath: codingPath))
    }

    /// Throws unless one more array or dictionary may open inside `containers`.
    func open(inside containers: Int, codingPath: [any CodingKey]) throws {
        guard containers < limit else { throw fail(codingPath, ()) }
    }
}

private struct ProbeEncoder: Encoder {
    let state: ProbeState
    /// How many self-encoding values this one is nested in, counting itself.
    let level: Int
    /// How many arrays and dictionaries this value is nested in.
    let containers: Int
    let codingPath: [any CodingKey]

    var userInfo: [CodingUserInfoKey: Any] {
        [:]
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(ProbeKeyedContainer<Key>(encoder: opened()))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        ProbeUnkeyedContainer(encoder: opened())
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        ProbeSingleValueContainer(encoder: self)
    }

    /// The position of a container this value opens: one level of arrays and dictionaries deeper. Opening past the
    /// limit is recorded in the state; the container's writes then throw.
    func opened(key: (any CodingKey)? = nil) -> ProbeEncoder {
        let path = key.map { codingPath + [$0] } ?? codingPath
        if (try? state.open(inside: containers, codingPath: path)) == nil {
            return ProbeEncoder(state: state, level: level, containers: Int.max, codingPath: path)
        }
        return ProbeEncoder(state: state, level: level, containers: containers + 1, codingPath: path)
    }

    /// Walks a value stored in this value's container.
    func walk<Value: Encodable>(_ value: Value, key: (any CodingKey)?) throws {
        guard containers != Int.max else { throw state.tooDeep ?? state.fail(codingPath, value) }
        let path = key.map { codingPath + [$0] } ?? codingPath
        try state.walk(value, level: level + 1, containers: containers, codingPath: path)
    }
}

private struct ProbeKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: ProbeEncoder

    var codingPath: [any CodingKey] {
        encoder.codingPath
    }

    // Scalars cannot nest: nothing to walk.
    mutating func encodeNil(forKey key: Key) {}
    mutating func encode(_ value: Bool, forKey key: Key) {}
    mutating func encode(_ value: String, forKey key: Key) {}
    mutating func encode(_ value: Double, forKey key: Key) {}
    mutating func encode(_ value: Float, forKey key: Key) {}
    mutating func encode(_ value: Int, forKey key: Key) {}
    mutating func encode(_ value: Int8, forKey key: Key) {}
    mutating func encode(_ value: Int16, forKey key: Key) {}
    mutating func encode(_ value: Int32, forKey key: Key) {}
    mutating func encode(_ value: Int64, forKey key: Key) {}
    mutating func encode(_ value: UInt, forKey key: Key) {}
    mutating func encode(_ value: UInt8, forKey key: Key) {}
    mutating func encode(_ value: UInt16, forKey key: Key) {}
    mutating func encode(_ value: UInt32, forKey key: Key) {}
    mutating func encode(_ value: UInt64, forKey key: Key) {}

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try encoder.walk(value, key: key)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type,
        forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        KeyedEncodingContainer(ProbeKeyedContainer<NestedKey>(encoder: encoder.opened(key: key)))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        ProbeUnkeyedContainer(encoder: encoder.opened(key: key))
    }

    mutating func superEncoder() -> any Encoder {
        ProbeEncoder(
            state: encoder.state, level: encoder.level + 1, containers: encoder.containers,
            codingPath: encoder.codingPath)
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        ProbeEncoder(
            state: encoder.state, level: encoder.level + 1, containers: encoder.containers,
            codingPath: encoder.codingPath + [key])
    }
}

private struct ProbeUnkeyedContainer: UnkeyedEncodingContainer {
    let encoder: ProbeEncoder
    var count = 0

    var codingPath: [any CodingKey] {
        encoder.codingPath
    }

    mutating func encodeNil() { count += 1 }
    mutating func encode(_ value: Bool) { count += 1 }
    mutating func encode(_ value: String) { count += 1 }
    mutating func encode(_ value: Double) { count += 1 }
    mutating func encode(_ value: Float) { count += 1 }
    mutating func encode(_ value: Int) { count += 1 }
    mutating func encode(_ value: Int8) { count += 1 }
    mutating func encode(_ value: Int16) { count += 1 }
    mutating func encode(_ value: Int32) { count += 1 }
    mutating func encode(_ value: Int64) { count += 1 }
    mutating func encode(_ value: UInt) { count += 1 }
    mutating func encode(_ value: UInt8) { count += 1 }
    mutating func encode(_ value: UInt16) { count += 1 }
    mutating func encode(_ value: UInt32) { count += 1 }
    mutating func encode(_ value: UInt64) { count += 1 }

    mutating func encode<T: Encodable>(_ value: T) throws {
        count += 1
        try encoder.walk(value, key: nil)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type
    ) -> KeyedEncodingContainer<NestedKey> {
        count += 1
        return KeyedEncodingContainer(ProbeKeyedContainer<NestedKey>(encoder: encoder.opened()))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        count += 1
        return ProbeUnkeyedContainer(encoder: encoder.opened())
    }

    mutating func superEncoder() -> any Encoder {
        count += 1
        return ProbeEncoder(
            state: encoder.state, level: encoder.level + 1, containers: encoder.containers,
            codingPath: encoder.codingPath)
    }
}

private struct ProbeSingleValueContainer: SingleValueEncodingContainer {
    let encoder: ProbeEncoder

    var codingPath: [any CodingKey] {
        encoder.codingPath
    }

    mutating func encodeNil() {}
    mutating func encode(_ value: Bool) {}
    mutating func encode(_ value: String) {}
    mutating func encode(_ value: Double) {}
    mutating func encode(_ value: Float) {}
    mutating func encode(_ value: Int) {}
    mutating func encode(_ value: Int8) {}
    mutating func encode(_ value: Int16) {}
    mutating func encode(_ value: Int32) {}
    mutating func encode(_ value: Int64) {}
    mutating func encode(_ value: UInt) {}
    mutating func encode(_ value: UInt8) {}
    mutating func encode(_ value: UInt16) {}
    mutating func encode(_ value: UInt32) {}
    mutating func encode(_ value: UInt64) {}

    /// The wrapped value sits at the same place in the coding path, one level deeper.
    mutating func encode<T: Encodable>(_ value: T) throws {
        try encoder.walk(value, key: nil)
    }
}
