/// Reads the entries of one stored keyed container by key name.
///
/// Keys are matched by their UTF-8 bytes, so entries this model does not know are simply never looked at, and a
/// missing key is reported as absent (`decodeIfPresent` returns nil) rather than as corruption.
///
/// The work happens in ``BinaryDecodingState`` (see BinaryDecodingState+KeyedEntries.swift); the container only
/// holds the cell that says which stored container it reads, so that its box can be reused.
struct BinaryKeyedDecodingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    typealias Cell = BinaryDecodingState.KeyedContainerCell

    /// The cell, not retained. `KeyedDecodingContainer` copies its concrete container for every value it reads,
    /// and retaining and releasing a reference in each copy took about a tenth of the decode time. The state's
    /// cache owns the cells of the containers it keeps, and hands a cell to ``BinaryOrphanedContainers`` if its
    /// container is still in use when the state goes away; any other container retains its cell through ``owner``.
    private let unretainedCell: Unmanaged<Cell>
    /// The cell again, retained, for a container the state does not keep; nil otherwise.
    private let owner: Cell?

    init(cell: Cell, retaining: Bool) {
        unretainedCell = .passUnretained(cell)
        owner = retaining ? cell : nil
    }

    /// Runs `body` with the cell, without retaining it.
    @inline(__always)
    private func withCell<Result>(_ body: (Cell) throws -> Result) rethrows -> Result {
        try unretainedCell._withUnsafeGuaranteedRef(body)
    }

    /// Runs `body` with the decoding state and this container's place, or throws if the decode call this container
    /// belongs to has returned.
    @inline(__always)
    private func withState<Result>(
        _ body: (BinaryDecodingState, BinaryDecodingState.KeyedPlace) throws -> Result
    ) throws -> Result {
        try withCell { cell in
            try cell.withState(orThrow: Self.expired) { try body($0, cell.place) }
        }
    }

    private static func expired() -> any Error {
        DecodingError.dataCorrupted(.init(
            codingPath: [],
            debugDescription: "A keyed container was used after the decode call that made it had returned."
        ))
    }

    var codingPath: [any CodingKey] {
        withCell { cell in cell.withState(else: []) { $0.codingPath(depth: cell.place.depth) } }
    }

    var allKeys: [Key] {
        withCell { cell in cell.withState(else: []) { $0.entryKeys(Key.self, in: cell.place) } }
    }

    func contains(_ key: Key) -> Bool {
        (try? withState { try $0.findEntry(key, in: $1) }) != nil
    }

    private func decodePrimitive<Value: BinaryPrimitive>(_ type: Value.Type, forKey key: Key) throws -> Value {
        try withState { try $0.decodeEntry(type, forKey: key, in: $1) }
    }

    private func decodePrimitiveIfPresent<Value: BinaryPrimitive>(
        _ type: Value.Type,
        forKey key: Key
    ) throws -> Value? {
        try withState { try $0.decodeEntryIfPresent(type, forKey: key, in: $1) }
    }

    // MARK: - Decoding

    func decodeNil(forKey key: Key) throws -> Bool {
        try withState { state, place in
            state.isNilEntry(at: try state.requireEntry(key, in: place), in: place)
        }
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decodePrimitive(type, forKey: key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try decodePrimitive(type, forKey: key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try decodePrimitive(type, forKey: key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try decodePrimitive(type, forKey: key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try decodePrimitive(type, forKey: key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try decodePrimitive(type, forKey: key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try decodePrimitive(type, forKey: key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try decodePrimitive(type, forKey: key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try decodePrimitive(type, forKey: key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try decodePrimitive(type, forKey: key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try decodePrimitive(type, forKey: key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try decodePrimitive(type, forKey: key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try decodePrimitive(type, forKey: key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try decodePrimitive(type, forKey: key) }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    func decode(_ type: Int128.Type, forKey key: Key) throws -> Int128 { try decodePrimitive(type, forKey: key) }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    func decode(_ type: UInt128.Type, forKey key: Key) throws -> UInt128 { try decodePrimitive(type, forKey: key) }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try withState { try $0.decodeEntry(type, forKey: key, in: $1) }
    }

    // One lookup instead of the default implementation's three (contains, decodeNil, decode).

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
        try decodePrimitiveIfPresent(type, forKey: key)
    }

    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        try decodePrimitiveIfPresent(type, forKey: key)
    }

    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
        try decodePrimitiveIfPresent(type, forKey: key)
    }

    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? {
        try decodePrimitiveIfPresent(type, forKey: key)
    }

    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? {
        try decodePrimitiveIfPresent(type, forKey: key)
    }

    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? {
        try decodePrimitiveIfPresent(type, forKey: key)
    }

    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? {
        try decodePrimitiveIfPresent(type, forKey: key)
    }

    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? {
        try decodePrimitiveIfPresent(type, forKey: key)
    }

    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? {
        try decodePrimitiveIfPresent(type, forKey: key)
    }

    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? {
        try decodePrimitiveIfPresent(type, forKey: key)
    }

    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? {
        try decodePrimitiveIfPresent(type, forKey: key)
    }

    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? {
        try decodePrimitiveIfPresent(type, forKey: key)
    }

    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? {
        try decodePrimitiveIfPresent(type, forKey: key)
    }

    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? {
        try decodePrimitiveIfPresent(type, forKey: key)
    }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    func decodeIfPresent(_ type: Int128.Type, forKey key: Key) throws -> Int128? {
        try decodePrimitiveIfPresent(type, forKey: key)
    }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    func decodeIfPresent(_ type: UInt128.Type, forKey key: Key) throws -> UInt128? {
        try decodePrimitiveIfPresent(type, forKey: key)
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        try withState { try $0.decodeEntryIfPresent(type, forKey: key, in: $1) }
    }

    // MARK: - Nesting

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type,
        forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try decoder(forKey: key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try decoder(forKey: key).unkeyedContainer()
    }

    /// A decoder for the value under the key `"super"`, or for nil if there is none, as Foundation's `JSONDecoder`
    /// gives: adding a superclass must not break the records written before it.
    func superDecoder() throws -> any Decoder {
        try withState { try $0.entryDecoder(forKey: BinaryCodingKey.superKey, in: $1, absentIsNil: true) }
    }

    /// A decoder for the value under `key`, or for nil if there is none.
    func superDecoder(forKey key: Key) throws -> any Decoder {
        try withState { try $0.entryDecoder(forKey: key, in: $1, absentIsNil: true) }
    }

    private func decoder(forKey key: some CodingKey) throws -> any Decoder {
        try withState { try $0.entryDecoder(forKey: key, in: $1) }
    }
}
