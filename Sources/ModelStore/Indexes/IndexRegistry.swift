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
            return try computing.values(of: model)
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
    /// The indexer on `model`, which is of the indexer's model type.
    func values<Value>(of model: Value) throws -> [IndexValue]
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

    func values<Value>(of model: Value) throws -> [IndexValue] {
        // `Value` is `Model` (the caller checked), so the indexer already has the type
        // `(Value) throws -> [IndexValue]`: called as that, it borrows the caller's model, where
        // reading the model through a pointer copied it (retaining every field) on every write.
        try unsafeBitCast(indexer, to: (@Sendable (Value) throws -> [IndexValue]).self)(model)
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

/// The new index values a set brings, computed from the model before the write (by id), and
/// the space's indexes they were computed for: while no index of the database changed since
/// (the same ``generation``), the funnel takes them as they are, without looking them up again.
struct ComputedIndexValues {
    var byID: [(id: UInt32, values: [IndexValue])] = []
    /// What the values were computed for.
    let maintained: MaintainedIndexes
    /// The registry's generation when they were.
    let generation: UInt64

    /// The values computed for `index` itself; nil when they were not (its model type is not
    /// the set's, or it was defined since). Matched by identity, not by id: values computed by
    /// another index's indexer are never a new index's, even if ids were ever given out again
    /// (within a process they are not, see ``IndexRegistry/highestID``).
    func values(for index: DefinedIndex) -> [IndexValue]? {
        guard maintained.indexes.contains(where: { $0 === index }) else { return nil }
        for entry in byID where entry.id == index.id { return entry.values }
        return nil
    }
}

/// The indexes of one key space in this process and the ids of the current indexes the
/// database defines there: what a write in the space maintains. Replaced whole, never changed.
final class MaintainedIndexes: Sendable {
    let indexes: [DefinedIndex]
    let stored: Set<UInt32>

    init(indexes: [DefinedIndex], stored: Set<UInt32>) {
        self.indexes = indexes
        self.stored = stored
    }

    static let none = MaintainedIndexes(indexes: [], stored: [])

    /// Whether a write in the space has no index work: no index here, none in the database.
    var isEmpty: Bool { indexes.isEmpty && stored.isEmpty }
}

/// The indexes defined in this process on one open database, by key space, and the ids of the
/// indexes the database defines in each key space (also where this process defines none: its
/// writes there must still carry the old values of those indexes, or remove their entries).
final class IndexRegistry: @unchecked Sendable {
    // @unchecked: `bySpace` is only touched under `lock`; `count` and `currentGeneration` are atomic.
    private let lock = Lock()
    /// Each space this process defines an index in: its indexes, and the ids of the current
    /// indexes the database defines there, its own and others' (see ``setStoredIDs(_:in:)``).
    private var bySpace: [KeySpace: MaintainedIndexes] = [:]
    /// How many key spaces have indexes, here or in the database: read without the lock by every write.
    private let count = AtomicWord()
    /// Moves on with every change of `bySpace`, which happens under the exclusive write gate:
    /// a write's computed values whose generation is still current need no new look-up.
    private let currentGeneration = AtomicWord()

    /// The highest id an index of this process was registered with: a new definition's id is
    /// above it (see `unusedIndexID`), so a dropped index's id is never given out again while
    /// this process may still hold the dropped index (a set's computed values, a paused build).
    private let highestRegisteredID = AtomicWord()

    /// The highest id an index was registered with in this process (0: none).
    var highestID: UInt32 { UInt32(truncatingIfNeeded: highestRegisteredID.load()) }

    /// Which state of the indexes a write's computed values belong to.
    @inline(__always)
    var generation: UInt64 { currentGeneration.load() }

    /// Whether no key space has an index, here or in the database: a write then pays one atomic
    /// load for indexes.
    @inline(__always)
    var isEmpty: Bool { count.load() == 0 }

    /// The indexes of `space`.
    @inline(__always)
    func indexes(for space: KeySpace) -> [DefinedIndex] {
        guard !isEmpty else { return [] }
        return lock.withLock { bySpace[space]?.indexes ?? [] }
    }

    /// The indexes of `space` and the ids of the current indexes the database defines there:
    /// what a write's values entry is rewritten with (IndexMaintenance.swift).
    @inline(__always)
    func maintained(in space: KeySpace) -> MaintainedIndexes {
        guard !isEmpty else { return .none }
        return lock.withLock { bySpace[space] ?? .none }
    }

    /// What a change of `space` maintains, under the exclusive write gate: its computed values'
    /// look-up while no index changed since, else a new one.
    @inline(__always)
    func maintained(by change: KeyChange) -> MaintainedIndexes {
        if let computed = change.indexValues, computed.generation == generation { return computed.maintained }
        return maintained(in: change.space)
    }

    /// Records `ids`, those of the current (built or building) definitions the database holds
    /// for `space`, read under the exclusive write gate: a values entry keeps the parts of these
    /// ids (an index another program defines) and drops the others (entries already cleared).
    func setStoredIDs(_ ids: Set<UInt32>, in space: KeySpace) {
        lock.withLock {
            let current = bySpace[space] ?? .none
            // This process's own indexes are current whatever the scan found.
            let maintained = MaintainedIndexes(indexes: current.indexes, stored: ids.union(current.indexes.map(\.id)))
            bySpace[space] = maintained.isEmpty ? nil : maintained
            didChange()
        }
    }

    /// Records the ids of the current definitions `engine` holds, by key space: at open, so that
    /// a process that defines no index in a key space still keeps the indexes defined there.
    func loadStoredIDs(from engine: LevelDB) throws {
        var bySpace: [KeySpace: Set<UInt32>] = [:]
        for (space, _, definition) in try Scope.indexDefinitions(in: engine) {
            guard let definition, definition.state != .dropped else { continue }
            bySpace[space, default: []].insert(definition.id)
        }
        for (space, ids) in bySpace { setStoredIDs(ids, in: space) }
    }

    /// The index `name` of `space` (names compared by their bytes).
    func index(named name: String, in space: KeySpace) -> DefinedIndex? {
        indexes(for: space).first { $0.name.utf8.elementsEqual(name.utf8) }
    }

    /// Adds `index`, replacing one of the same name and space. Call under the exclusive write
    /// gate, so no write is between computing and applying its index work meanwhile.
    func register(_ index: DefinedIndex) {
        lock.withLock {
            let current = bySpace[index.space] ?? .none
            var list = current.indexes
            list.removeAll { $0.name.utf8.elementsEqual(index.name.utf8) }
            list.append(index)
            bySpace[index.space] = MaintainedIndexes(indexes: list, stored: current.stored.union([index.id]))
            highestRegisteredID.store(max(highestRegisteredID.load(), UInt64(index.id)))
            didChange()
        }
    }

    /// Removes the index `name` of `space`; under the exclusive write gate, as ``register(_:)``.
    func unregister(_ name: String, in space: KeySpace) {
        lock.withLock {
            guard let current = bySpace[space] else { return }
            let list = current.indexes.filter { !$0.name.utf8.elementsEqual(name.utf8) }
            let maintained = MaintainedIndexes(indexes: list, stored: current.stored)
            bySpace[space] = maintained.isEmpty ? nil : maintained
            didChange()
        }
    }

    /// After a change of ``bySpace``, under `lock`.
    private func didChange() {
        count.store(UInt64(bySpace.count))
        currentGeneration.store(currentGeneration.load() &+ 1)
    }

    /// Whether any of `changes` is in a space with indexes: its write must then carry index work.
    @inline(__always)
    func maintains(_ changes: ChangeList) -> Bool {
        guard !isEmpty else { return false }
        var found = false
        changes.forEach { if $0.indexValues != nil { found = true } }
        if found { return true }
        lock.withLock { changes.forEach { if !found, bySpace[$0.space] != nil { found = true } } }
        return found
    }

    /// The values of `model` for each index of `space` whose type it is, for a set's ``KeyChange``.
    @inline(__always)
    func values<Value>(of model: Value, key: String, in space: KeySpace) throws(ModelStoreError) -> ComputedIndexValues? {
        guard !isEmpty else { return nil }
        let (found, current) = lock.withLock { () -> (MaintainedIndexes?, UInt64) in (bySpace[space], currentGeneration.load()) }
        guard let maintained = found else { return nil }
        var computed = ComputedIndexValues(maintained: maintained, generation: current)
        computed.byID.reserveCapacity(maintained.indexes.count)
        for index in maintained.indexes {
            if let values = try index.values(of: model, key: key) { computed.byID.append((index.id, values)) }
        }
        return computed
    }

    /// A removal of the record at `physicalKey` for the funnel to remove its entries, if its
    /// space has indexes: what a removal loop that tracks no keys still owes the indexes.
    func removal(ofPhysical physicalKey: UnsafeRawBufferPointer) -> KeyChange? {
        guard !isEmpty, let (space, key) = KeySpace.split(physicalKey), !maintained(in: space).isEmpty else { return nil }
        return KeyChange(key, in: space, .removed)
    }
}
