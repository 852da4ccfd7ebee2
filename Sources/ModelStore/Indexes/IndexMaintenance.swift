internal import CLevelDB

// MARK: - Index maintenance, the write funnel's index step
//
// Every write the funnel applies under the exclusive gate passes here first (see
// `ExclusiveWrite.write` in WriteFunnel.swift): for each key it changes in a key space with
// indexes, the record's old values in all of the space's indexes come from its values entry
// (one read, never a decode of the old model), and the write's batch gets the deletes of old
// entries, the puts of new ones and the new values entry. So a record and its entries are
// written in one atomic LevelDB batch, or none of them is. The gate is exclusive because the
// step reads before it writes: two writers of one key under the shared gate could both read
// the same old values, and the entries of the one applied first would be left behind.
//
// A set's new values were computed from its model before the write (`ComputedIndexValues`);
// for a set without them (a write by a path that had another model type, a read-through store,
// a rewrite of the same payload, or one that raced with `defineIndex`) the record the write
// carries is decoded as the index's type here instead. An indexer that throws fails the write.

/// The index work of one write: its batch, and what the write has done to each values entry.
struct IndexWork {
    let engine: LevelDB
    let batch: LevelDBWriteBatch
    /// The write as it arrived, for the records a set carries.
    private let original: EngineWrite
    /// Each values entry the write has changed, as it will be (empty: none): later changes of
    /// the same key in one batch start from there.
    private var pending: [[UInt8]: [UInt8]] = [:]
    /// The records the batch puts, by physical key, read once on the first set without values.
    private var putRecords: [[UInt8]: [UInt8]]?
    /// Whether one key may change twice in the write (a batch): only then is ``pending`` kept.
    private let tracksPending: Bool
    /// Reused by every change of the write: an entry's key, the new values entry, a part's encodings.
    private var keyBuffer: [UInt8] = []
    private var valueBuffer: [UInt8] = []
    private var encodings: [UInt8] = []
    private var ranges: [Range<Int>] = []

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

    /// Brings the entries of the record `userKey` (UTF-8) of `space`, in each index of
    /// `changes`, to its values there; the parts of other ids in `stored` stay as they are, the
    /// rest go (their entries were cleared).
    mutating func update(
        space: KeySpace, userKey: UnsafeRawBufferPointer, _ changes: [(id: UInt32, values: [IndexValue])],
        stored: Set<UInt32>
    ) throws {
        let valuesKey = IndexKeys.valuesKey(in: space, userKey: userKey)
        if tracksPending, let old = pending[valuesKey] {
            try old.withUnsafeBytes { try update(valuesKey, old: $0.isEmpty ? nil : $0, userKey, changes, stored: stored) }
        } else {
            try valuesKey.withUnsafeBytes { key in
                try engine.withValue(forKey: key) { old in
                    try update(valuesKey, old: old, userKey, changes, stored: stored)
                }
            }
        }
    }

    private mutating func update(
        _ valuesKey: [UInt8], old: UnsafeRawBufferPointer?, _ userKey: UnsafeRawBufferPointer,
        _ changes: [(id: UInt32, values: [IndexValue])], stored: Set<UInt32>
    ) throws {
        let oldParts = old.map(ValuesEntry.init) ?? ValuesEntry()
        valueBuffer.removeAll(keepingCapacity: true)
        valueBuffer.append(IndexKeys.valuesFormat)
        for (id, values) in changes {
            // The new encodings, each once, one after the other.
            encodings.removeAll(keepingCapacity: true)
            ranges.removeAll(keepingCapacity: true)
            for value in values {
                let start = encodings.count
                value.append(to: &encodings)
                if Self.contains(encodings, ranges, encodings[start...]) {
                    encodings.removeSubrange(start...)
                } else {
                    ranges.append(start..<encodings.count)
                }
            }
            let oldPart = oldParts.part(id, in: old)
            if !encodings.isEmpty { Self.appendPart(id, encodings, to: &valueBuffer) }
            if let oldPart, oldPart.elementsEqual(encodings) { continue }
            if let oldPart {
                var offset = 0
                while offset < oldPart.count, let length = IndexValue.encodedLength(in: oldPart, at: offset) {
                    let encoding = oldPart[offset..<(offset + length)]
                    if !Self.contains(encodings, ranges, encoding) { putEntry(id, encoding, userKey, delete: true) }
                    offset += length
                }
            }
            for range in ranges {
                let encoding = encodings[range]
                if let oldPart, Self.contains(oldPart, encoding) { continue }
                encoding.withUnsafeBytes { putEntry(id, $0[...], userKey, delete: false) }
            }
        }
        // The parts of indexes this write did not change.
        if let old {
            for (id, range) in oldParts.parts where !changes.contains(where: { $0.id == id }) && stored.contains(id) {
                Self.appendPart(id, UnsafeRawBufferPointer(rebasing: old[range]), to: &valueBuffer)
            }
        }
        let isEmpty = valueBuffer.count == 1
        if let old, old.elementsEqual(valueBuffer) { return }
        if old == nil, isEmpty { return }
        valuesKey.withUnsafeBytes { key in
            if isEmpty {
                batch.delete(key: key)
            } else {
                valueBuffer.withUnsafeBytes { batch.put(key: key, value: $0) }
            }
        }
        if tracksPending { pending[valuesKey] = isEmpty ? [] : valueBuffer }
    }

    /// Puts (or deletes) index `id`'s entry of `userKey` for the value encoded as `encoding`.
    private mutating func putEntry(
        _ id: UInt32, _ encoding: Slice<UnsafeRawBufferPointer>, _ userKey: UnsafeRawBufferPointer, delete: Bool
    ) {
        keyBuffer.removeAll(keepingCapacity: true)
        keyBuffer.append(KeySpace.systemMarker)
        keyBuffer.append(IndexKeys.entryKind)
        keyBuffer.append(UInt8(truncatingIfNeeded: id >> 24))
        keyBuffer.append(UInt8(truncatingIfNeeded: id >> 16))
        keyBuffer.append(UInt8(truncatingIfNeeded: id >> 8))
        keyBuffer.append(UInt8(truncatingIfNeeded: id))
        keyBuffer.append(contentsOf: encoding)
        keyBuffer.append(contentsOf: userKey)
        keyBuffer.withUnsafeBytes { key in
            if delete {
                batch.delete(key: key)
            } else {
                batch.put(key: key, value: UnsafeRawBufferPointer(start: nil, count: 0))
            }
        }
    }

    private static func appendPart(_ id: UInt32, _ encodings: some Collection<UInt8>, to buffer: inout [UInt8]) {
        buffer.append(UInt8(truncatingIfNeeded: id >> 24))
        buffer.append(UInt8(truncatingIfNeeded: id >> 16))
        buffer.append(UInt8(truncatingIfNeeded: id >> 8))
        buffer.append(UInt8(truncatingIfNeeded: id))
        LEB128.append(encodings.count, to: &buffer)
        buffer.append(contentsOf: encodings)
    }

    /// Whether the encodings at `ranges` of `encodings` include `encoding`.
    private static func contains(_ encodings: [UInt8], _ ranges: [Range<Int>], _ encoding: some Collection<UInt8>) -> Bool {
        for range in ranges where range.count == encoding.count && encodings[range].elementsEqual(encoding) {
            return true
        }
        return false
    }

    /// Whether the encodings one after the other in `part` include `encoding`.
    private static func contains(_ part: UnsafeRawBufferPointer, _ encoding: ArraySlice<UInt8>) -> Bool {
        var offset = 0
        while offset < part.count, let length = IndexValue.encodedLength(in: part, at: offset) {
            if length == encoding.count, part[offset..<(offset + length)].elementsEqual(encoding) { return true }
            offset += length
        }
        return false
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

/// The parts of a values entry's value: each index id and where its encodings lie. A damaged
/// value has no parts (its record's old entries cannot be found; the new ones are written).
struct ValuesEntry {
    private(set) var parts: [(id: UInt32, range: Range<Int>)] = []

    init() {}

    init(_ value: UnsafeRawBufferPointer) {
        guard value.first == IndexKeys.valuesFormat else { return }
        var offset = 1
        while offset + 4 < value.count {
            let id = UInt32(value[offset]) << 24 | UInt32(value[offset + 1]) << 16 | UInt32(value[offset + 2]) << 8
                | UInt32(value[offset + 3])
            offset += 4
            guard let length = LEB128.read(value, at: &offset) else { return }
            parts.append((id, offset..<(offset + length)))
            offset += length
        }
    }

    /// The encodings of index `id` in `value`, the bytes these parts were read from; nil for none.
    func part(_ id: UInt32, in value: UnsafeRawBufferPointer?) -> UnsafeRawBufferPointer? {
        guard let value else { return nil }
        for part in parts where part.id == id { return UnsafeRawBufferPointer(rebasing: value[part.range]) }
        return nil
    }
}

extension IndexRegistry {
    /// The funnel's index step: `write` with the index work of `changes` joined to it (the
    /// same write when no change is in a space with indexes).
    ///
    /// - Throws: ``ModelStoreError/indexerFailed(index:key:message:)`` (nothing is written), or
    ///   LevelDB's error reading a values entry.
    func maintaining(_ write: EngineWrite, _ changes: ChangeList, engine: LevelDB) throws -> EngineWrite {
        guard !isEmpty else { return write }
        var work: IndexWork?
        try changes.forEach { change in
            let (indexes, stored) = maintained(in: change.space)
            guard !indexes.isEmpty else { return }
            if work == nil { work = IndexWork(engine: engine, write: write, tracksPending: changes.count > 1) }
            try change.space.withPhysicalKey(change.key) { physicalKey in
                let userKey = UnsafeRawBufferPointer(rebasing: physicalKey[change.space.prefix.count...])
                var values: [(id: UInt32, values: [IndexValue])]
                if change.kind != .set {
                    values = indexes.map { ($0.id, []) }
                } else if let computed = change.indexValues, computed.byID.count == indexes.count {
                    values = computed.byID
                } else {
                    values = []
                    values.reserveCapacity(indexes.count)
                    for index in indexes {
                        if let computed = change.indexValues?[index.id] {
                            values.append((index.id, computed))
                        } else if let record = work!.record(at: physicalKey) {
                            let decoded = try record.withUnsafeBytes { record in
                                try index.values(ofRecord: record, key: change.key, keyBytes: physicalKey)
                            }
                            values.append((index.id, decoded ?? []))
                        }
                        // Else a set whose record this write does not carry: nothing to judge by,
                        // the index's part stays.
                    }
                }
                try work!.update(space: change.space, userKey: userKey, values, stored: stored)
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
