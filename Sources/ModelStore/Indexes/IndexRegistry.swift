import Foundation

/// One index defined in this process: its record in the database and the code that computes
/// its values.
final class DefinedIndex: Sendable {
    let name: String
    let space: KeySpace
    /// The id its entries are stored under (see IndexKeys.swift).
    let id: UInt32
    let version: Int
    /// The model type the indexer takes.
    let modelType: any Any.Type
    let typeName: String
    /// Set once every stored record is indexed: queries answer only then.
    private let built: AtomicWord
    /// The indexer, typed.
    private let computing: any IndexComputing

    init<Model: Decodable>(
        name: String, space: KeySpace, id: UInt32, version: Int, isBuilt: Bool, reader: RecordReader,
        type: Model.Type, indexer: @escaping @Sendable (Model) throws -> [IndexValue]
    ) {
        self.name = name
        self.space = space
        self.id = id
        self.version = version
        modelType = type
        typeName = String(describing: type)
        built = AtomicWord(isBuilt ? 1 : 0)
        computing = TypedIndexer(indexer: indexer, reader: reader)
    }

    var isBuilt: Bool { built.load() != 0 }

    func markBuilt() { built.store(1) }

    /// The indexer's values of `model`, or nil when `Value` is not the index's model type (the
    /// funnel then decodes the record it writes, see ``IndexWork``).
    ///
    /// - Throws: ``ModelStoreError/indexerFailed(index:key:message:)``.
    @inline(__always)
    func values<Value>(of model: Value, key: String) throws(ModelStoreError) -> [IndexValue]? {
        guard Value.self == modelType else { return nil }
        do {
            return try withUnsafePointer(to: model) { try computing.values(at: UnsafeRawPointer($0)) }
        } catch {
            throw failure(error, key: key)
        }
    }

    /// The indexer's values of the stored `record`; nil when it does not decode as the index's type.
    func values(ofRecord record: UnsafeRawBufferPointer, key: String, keyBytes: UnsafeRawBufferPointer) throws(ModelStoreError) -> [IndexValue]? {
        do {
            return try computing.values(ofRecord: record, key: key, keyBytes: keyBytes)
        } catch {
            throw failure(error, key: key)
        }
    }

    private func failure(_ error: any Error, key: String) -> ModelStoreError {
        if let error = error as? ModelStoreError, case .indexerFailed = error { return error }
        return .indexerFailed(index: name, key: key, message: String(describing: error))
    }
}

/// An indexer and the model type it reads, behind a protocol so the index's other parts are not generic.
protocol IndexComputing: Sendable {
    /// The indexer on the model at `pointer`, which is of the indexer's model type.
    func values(at pointer: UnsafeRawPointer) throws -> [IndexValue]
    /// The indexer on a stored record decoded as the model type; nil when it does not decode.
    func values(ofRecord record: UnsafeRawBufferPointer, key: String, keyBytes: UnsafeRawBufferPointer) throws -> [IndexValue]?
}

final class TypedIndexer<Model: Decodable>: IndexComputing {
    let indexer: @Sendable (Model) throws -> [IndexValue]
    let reader: RecordReader

    init(indexer: @escaping @Sendable (Model) throws -> [IndexValue], reader: RecordReader) {
        self.indexer = indexer
        self.reader = reader
    }

    func values(at pointer: UnsafeRawPointer) throws -> [IndexValue] {
        try indexer(pointer.assumingMemoryBound(to: Model.self).pointee)
    }

    func values(ofRecord record: UnsafeRawBufferPointer, key: String, keyBytes: UnsafeRawBufferPointer) throws -> [IndexValue]? {
        // A record that is damaged, or is not a `Model`, is not indexed (a build counts it as skipped).
        // A sealed record is opened first (the one place reads open records).
        guard let header = try? reader.header(record, key: key, keyBytes: keyBytes, type: Model.self),
            let model = try? reader.opened(record, header: header, key: key, keyBytes: keyBytes, { record, header in
                try reader.decodePayload(Model.self, key: key, header: header, record: record)
            })
        else { return nil }
        return try indexer(model)
    }
}

/// The new index values a set brings, computed from the model before the write (by id).
struct ComputedIndexValues {
    var byID: [(id: UInt32, values: [IndexValue])] = []

    subscript(id: UInt32) -> [IndexValue]? {
        for entry in byID where entry.id == id { return entry.values }
        return nil
    }
}

/// The indexes defined in this process on one open database, by key space.
final class IndexRegistry: @unchecked Sendable {
    // @unchecked: `bySpace` and `storedBySpace` are only touched under `lock`; `count` is atomic.
    private let lock = Lock()
    private var bySpace: [KeySpace: [DefinedIndex]] = [:]
    /// The ids of the current indexes the database defines in each space this process defines
    /// one in, its own and others' (see ``setStoredIDs(_:in:)``).
    private var storedBySpace: [KeySpace: Set<UInt32>] = [:]
    /// How many indexes are defined: read without the lock by every write.
    private let count = AtomicWord()

    /// Whether no index is defined: a write then pays one atomic load for indexes.
    @inline(__always)
    var isEmpty: Bool { count.load() == 0 }

    /// The indexes of `space`.
    @inline(__always)
    func indexes(for space: KeySpace) -> [DefinedIndex] {
        guard !isEmpty else { return [] }
        return lock.withLock { bySpace[space] ?? [] }
    }

    /// The indexes of `space` and the ids of the current indexes the database defines there:
    /// what a write's values entry is rewritten with (IndexMaintenance.swift).
    @inline(__always)
    func maintained(in space: KeySpace) -> (indexes: [DefinedIndex], stored: Set<UInt32>) {
        guard !isEmpty else { return ([], []) }
        return lock.withLock { (bySpace[space] ?? [], storedBySpace[space] ?? []) }
    }

    /// Records `ids`, those of the current (built or building) definitions the database holds
    /// for `space`, read under the exclusive write gate: a values entry keeps the parts of these
    /// ids (an index another program defines) and drops the others (entries already cleared).
    func setStoredIDs(_ ids: Set<UInt32>, in space: KeySpace) {
        lock.withLock {
            // This process's own indexes are current whatever the scan found.
            storedBySpace[space] = ids.union((bySpace[space] ?? []).map(\.id))
        }
    }

    /// The index `name` of `space` (names compared by their bytes).
    func index(named name: String, in space: KeySpace) -> DefinedIndex? {
        indexes(for: space).first { $0.name.utf8.elementsEqual(name.utf8) }
    }

    /// Adds `index`, replacing one of the same name and space. Call under the exclusive write
    /// gate, so no write is between computing and applying its index work meanwhile.
    func register(_ index: DefinedIndex) {
        lock.withLock {
            var list = bySpace[index.space] ?? []
            list.removeAll { $0.name.utf8.elementsEqual(index.name.utf8) }
            list.append(index)
            bySpace[index.space] = list
            count.store(UInt64(bySpace.values.reduce(0) { $0 + $1.count }))
        }
    }

    /// Removes the index `name` of `space`; under the exclusive write gate, as ``register(_:)``.
    func unregister(_ name: String, in space: KeySpace) {
        lock.withLock {
            bySpace[space]?.removeAll { $0.name.utf8.elementsEqual(name.utf8) }
            if bySpace[space]?.isEmpty == true { bySpace[space] = nil }
            count.store(UInt64(bySpace.values.reduce(0) { $0 + $1.count }))
        }
    }

    /// Whether any of `changes` is in a space with indexes: its write must then carry index work.
    @inline(__always)
    func maintains(_ changes: ChangeList) -> Bool {
        guard !isEmpty else { return false }
        var found = false
        lock.withLock { changes.forEach { if !found, bySpace[$0.space] != nil { found = true } } }
        return found
    }

    /// The values of `model` for each index of `space` whose type it is, for a set's ``KeyChange``.
    @inline(__always)
    func values<Value>(of model: Value, key: String, in space: KeySpace) throws(ModelStoreError) -> ComputedIndexValues? {
        guard !isEmpty else { return nil }
        let indexes = indexes(for: space)
        guard !indexes.isEmpty else { return nil }
        var computed = ComputedIndexValues()
        computed.byID.reserveCapacity(indexes.count)
        for index in indexes {
            if let values = try index.values(of: model, key: key) { computed.byID.append((index.id, values)) }
        }
        return computed
    }

    /// A removal of the record at `physicalKey` for the funnel to remove its entries, if its
    /// space has indexes: what a removal loop that tracks no keys still owes the indexes.
    func removal(ofPhysical physicalKey: UnsafeRawBufferPointer) -> KeyChange? {
        guard !isEmpty, let (space, key) = KeySpace.split(physicalKey), !indexes(for: space).isEmpty else { return nil }
        return KeyChange(key, in: space, .removed)
    }
}
