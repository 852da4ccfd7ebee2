internal import CLevelDB

// MARK: - Index maintenance, the write funnel's index step
//
// Every write the funnel applies under the exclusive gate passes here first (see
// `ExclusiveWrite.write` in WriteFunnel.swift): for each key it changes in a key space with
// indexes, the record's old values come from its reverse entry (never from decoding the old
// model), and the write's batch gets the deletes of old entries, the puts of new ones and the
// new reverse entry. So a record and its entries are written in one atomic LevelDB batch, or
// none of them is.
//
// A set's new values were computed from its model before the write (`ComputedIndexValues`);
// for a set without them (a write by a path that had another model type, a read-through store,
// a rewrite of the same payload, or one that raced with `defineIndex`) the record the write
// carries is decoded as the index's type here instead. An indexer that throws fails the write.

/// The index work of one write: its batch, and what the write has done to each reverse entry.
struct IndexWork {
    let engine: LevelDB
    let batch: LevelDBWriteBatch
    /// The write as it arrived, for the records a set carries.
    private let original: EngineWrite
    /// Each reverse entry the write has changed, as it will be: later changes of the same key
    /// in one batch start from there.
    private var pending: [[UInt8]: [ArraySlice<UInt8>]] = [:]
    /// The records the batch puts, by physical key, read once on the first set without values.
    private var putRecords: [[UInt8]: [UInt8]]?
    /// Whether one key may change twice in the write (a batch): only then is ``pending`` kept.
    private let tracksPending: Bool

    init(engine: LevelDB, write: EngineWrite, tracksPending: Bool = false) {
        self.engine = engine
        self.tracksPending = tracksPending
        original = write
        switch write {
        case .batch(let batch):
            self.batch = batch
        case let .put(key, value):
            batch = LevelDBWriteBatch()
            batch.put(key: key, value: value)
        case let .delete(key):
            batch = LevelDBWriteBatch()
            batch.delete(key: key)
        }
    }

    /// Brings index `id`'s entries of the record `userKey` (UTF-8) to `values`.
    mutating func replace(_ id: UInt32, userKey: UnsafeRawBufferPointer, with values: [IndexValue]) throws {
        var new: [ArraySlice<UInt8>] = []
        for value in values {
            let encoded = ArraySlice(value.encoded)
            if !new.contains(encoded) { new.append(encoded) }
        }
        let reverseKey = IndexKeys.reverseKey(id, userKey: userKey)
        let old = try (tracksPending ? pending[reverseKey] : nil) ?? reverseKey.withUnsafeBytes { key in
            try engine.withValue(forKey: key) { $0.map(IndexKeys.encodings(inReverse:)) ?? [] }
        }
        guard old != new else { return }
        let empty = UnsafeRawBufferPointer(start: nil, count: 0)
        for encoded in old where !new.contains(encoded) {
            IndexKeys.entryKey(id, encoded: encoded, userKey: userKey).withUnsafeBytes { batch.delete(key: $0) }
        }
        for encoded in new where !old.contains(encoded) {
            IndexKeys.entryKey(id, encoded: encoded, userKey: userKey).withUnsafeBytes { batch.put(key: $0, value: empty) }
        }
        if new.isEmpty {
            reverseKey.withUnsafeBytes { batch.delete(key: $0) }
        } else {
            var value: [UInt8] = [IndexKeys.reverseFormat]
            for encoded in new { value += encoded }
            reverseKey.withUnsafeBytes { key in value.withUnsafeBytes { batch.put(key: key, value: $0) } }
        }
        if tracksPending { pending[reverseKey] = new }
    }

    /// The record the write puts under `physicalKey` (its last put, in a batch); nil for none.
    mutating func record(at physicalKey: UnsafeRawBufferPointer) -> [UInt8]? {
        switch original {
        case let .put(key, value): return key.elementsEqual(physicalKey) ? Array(value) : nil
        case .delete: return nil
        case .batch(let batch):
            if putRecords == nil { putRecords = batch.puts() }
            return putRecords?[Array(physicalKey)]
        }
    }
}

extension IndexRegistry {
    /// The funnel's index step: `write` with the index work of `changes` joined to it (the
    /// same write when no change is in a space with indexes).
    ///
    /// - Throws: ``ModelStoreError/indexerFailed(index:key:message:)`` (nothing is written), or
    ///   LevelDB's error reading a reverse entry.
    func maintaining(_ write: EngineWrite, _ changes: ChangeList, engine: LevelDB) throws -> EngineWrite {
        guard !isEmpty else { return write }
        var work: IndexWork?
        try changes.forEach { change in
            let indexes = indexes(for: change.space)
            guard !indexes.isEmpty else { return }
            if work == nil { work = IndexWork(engine: engine, write: write, tracksPending: changes.count > 1) }
            try change.space.withPhysicalKey(change.key) { physicalKey in
                let userKey = UnsafeRawBufferPointer(rebasing: physicalKey[change.space.prefix.count...])
                for index in indexes {
                    var values: [IndexValue] = []
                    if change.kind == .set {
                        if let computed = change.indexValues?[index.id] {
                            values = computed
                        } else if let record = work!.record(at: physicalKey) {
                            values = try record.withUnsafeBytes { record in
                                try index.values(ofRecord: record, key: change.key, keyBytes: physicalKey)
                            } ?? []
                        } else {
                            // A set whose record this write does not carry: nothing to judge by.
                            continue
                        }
                    }
                    try work!.replace(index.id, userKey: userKey, with: values)
                }
            }
        }
        return work.map { .batch($0.batch) } ?? write
    }
}

extension LevelDBWriteBatch {
    /// The batch's puts, by key (the last one of a key wins): what a set without computed index
    /// values is judged by.
    func puts() -> [[UInt8]: [UInt8]] {
        final class Collected { var puts: [[UInt8]: [UInt8]] = [:] }
        let collected = Collected()
        withExtendedLifetime(collected) {
            leveldb_writebatch_iterate(
                handle, Unmanaged.passUnretained(collected).toOpaque(),
                { state, key, keyLength, value, valueLength in
                    let collected = Unmanaged<Collected>.fromOpaque(state!).takeUnretainedValue()
                    let key = Array(UnsafeRawBufferPointer(start: key, count: keyLength))
                    collected.puts[key] = Array(UnsafeRawBufferPointer(start: value, count: valueLength))
                },
                { state, key, keyLength in
                    let collected = Unmanaged<Collected>.fromOpaque(state!).takeUnretainedValue()
                    collected.puts[Array(UnsafeRawBufferPointer(start: key, count: keyLength))] = nil
                })
        }
        return collected.puts
    }
}
