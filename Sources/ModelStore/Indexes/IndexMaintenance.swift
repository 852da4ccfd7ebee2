internal import CLevelDB
import Foundation
import ModelStoreCodecs

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

/// Buffers one thread reuses for the index work of its writes: a key, a values entry, and
/// the batch a single put or delete becomes.
final class IndexScratch {
    private static let spare = ThreadSpare<IndexScratch>()
    /// Touched only by the thread that took the scratch.
    @exclusivity(unchecked) var key: [UInt8] = []
    @exclusivity(unchecked) var value: [UInt8] = []
    @exclusivity(unchecked) var valuesKey: [UInt8] = []
    let batch = LevelDBWriteBatch()

    private init() {
        key.reserveCapacity(256)
        value.reserveCapacity(256)
        valuesKey.reserveCapacity(256)
    }

    static func take() -> IndexScratch { spare.take() ?? IndexScratch() }

    /// Offers `scratch` back to the calling thread, unless one write made it huge.
    static func putBack(_ scratch: IndexScratch) {
        guard scratch.key.capacity <= RecordBuffer.maximumKeptCapacity,
            scratch.value.capacity <= RecordBuffer.maximumKeptCapacity,
            scratch.valuesKey.capacity <= RecordBuffer.maximumKeptCapacity,
            scratch.batch.byteCount <= RecordBuffer.maximumKeptCapacity
        else { return }
        spare.putBack(scratch)
    }
}

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
    /// The thread's buffers, for every change of the write; given back by ``finish()``.
    private let scratch = IndexScratch.take()

    init(engine: LevelDB, write: EngineWrite, tracksPending: Bool = false) {
        self.engine = engine
        self.tracksPending = tracksPending
        original = write
        switch write {
        case .batch(let batch):
            self.batch = batch
        case let .put(key, value):
            batch = scratch.batch
            batch.clear()
            batch.put(key: key, value: value)
        case let .delete(key):
            batch = scratch.batch
            batch.clear()
            batch.delete(key: key)
        }
    }

    /// Gives the scratch buffers back to the thread: call once the batch is applied (it may be
    /// the scratch's own), or, for a write that arrived as a batch, once it is built.
    func finish() {
        IndexScratch.putBack(scratch)
    }

    /// Brings the entries of the record `userKey` (UTF-8) of `space`, in each index of
    /// `changes`, to its values there; the parts of other ids in `stored` stay as they are, the
    /// rest go (their entries were cleared).
    ///
    /// A write trusts the values entry's part of an index: its entries exist, so unchanged
    /// values write nothing. A build does not (`trustingStoredParts: false`): a part may be left
    /// by a dropped or lost index that had the same id, whose entries are gone, so the build
    /// puts every entry of the record's values.
    mutating func update(
        space: KeySpace, userKey: UnsafeRawBufferPointer, _ changes: [(id: UInt32, values: [IndexValue])],
        stored: Set<UInt32>, trustingStoredParts: Bool = true
    ) throws {
        let scratch = scratch
        scratch.valuesKey.removeAll(keepingCapacity: true)
        IndexKeys.appendValuesKey(in: space, userKey: userKey, to: &scratch.valuesKey)
        if tracksPending, let old = pending[scratch.valuesKey] {
            try old.withUnsafeBytes {
                try update(old: $0.isEmpty ? nil : $0, userKey, changes, stored: stored, trusting: trustingStoredParts)
            }
        } else {
            try scratch.valuesKey.withUnsafeBytes { key in
                try engine.withValue(forKey: key) { old in
                    try update(old: old, userKey, changes, stored: stored, trusting: trustingStoredParts)
                }
            }
        }
    }

    /// ``update(space:userKey:_:stored:)`` of the values entry in `scratch.valuesKey`, whose value is `old`.
    private mutating func update(
        old: UnsafeRawBufferPointer?, _ userKey: UnsafeRawBufferPointer,
        _ changes: [(id: UInt32, values: [IndexValue])], stored: Set<UInt32>, trusting: Bool
    ) throws {
        let oldParts = old.map(ValuesEntry.init) ?? ValuesEntry()
        let scratch = scratch
        // The new values entry is built in place: each part's encodings are written after its
        // id, deduplicated there, compared with the old part, then given their length.
        scratch.value.removeAll(keepingCapacity: true)
        scratch.value.append(IndexKeys.valuesFormat)
        for (id, values) in changes {
            let partStart = scratch.value.count
            Self.appendID(id, to: &scratch.value)
            // One byte for the part's length, the LEB128 of any length below 128; widened below
            // for a longer part.
            scratch.value.append(0)
            let start = scratch.value.count
            for value in values {
                let next = scratch.value.count
                value.append(to: &scratch.value)
                if Self.holds(scratch.value, start..<next, scratch.value.count - next, at: next) {
                    scratch.value.removeSubrange(next...)
                }
            }
            let end = scratch.value.count
            let oldPart = trusting ? oldParts.part(id, in: old) : nil
            let unchanged = oldPart.map { oldPart in
                scratch.value.withUnsafeBytes { Self.equal(oldPart, UnsafeRawBufferPointer(rebasing: $0[start..<end])) }
            } ?? (start == end)
            if !unchanged {
                if let oldPart {
                    var offset = 0
                    while offset < oldPart.count, let length = IndexValue.encodedLength(in: oldPart, at: offset) {
                        let encoding = UnsafeRawBufferPointer(rebasing: oldPart[offset..<(offset + length)])
                        let kept = scratch.value.withUnsafeBytes { Self.holds($0, start..<end, encoding) }
                        if !kept { putEntry(id, encoding, userKey, delete: true) }
                        offset += length
                    }
                }
                var offset = start
                while offset < end {
                    let length = scratch.value.withUnsafeBytes { IndexValue.encodedLength(in: $0, at: offset) } ?? (end - offset)
                    let range = offset..<(offset + length)
                    offset += length
                    if let oldPart, scratch.value.withUnsafeBytes({ Self.holds(oldPart, UnsafeRawBufferPointer(rebasing: $0[range])) }) {
                        continue
                    }
                    scratch.value.withUnsafeBytes { putEntry(id, UnsafeRawBufferPointer(rebasing: $0[range]), userKey, delete: false) }
                }
            }
            if start == end {
                scratch.value.removeSubrange(partStart...)
            } else if end - start < 0x80 {
                scratch.value[start - 1] = UInt8(end - start)
            } else {
                var length: [UInt8] = []
                LEB128.append(end - start, to: &length)
                scratch.value.replaceSubrange((start - 1)..<start, with: length)
            }
        }
        // The parts of indexes this write did not change.
        if let old {
            for (id, range) in oldParts.parts where !changes.contains(where: { $0.id == id }) && stored.contains(id) {
                let part = UnsafeRawBufferPointer(rebasing: old[range])
                Self.appendID(id, to: &scratch.value)
                LEB128.append(part.count, to: &scratch.value)
                scratch.value.append(contentsOf: part)
            }
        }
        let isEmpty = scratch.value.count == 1
        if let old, scratch.value.withUnsafeBytes({ Self.equal(old, $0) }) { return }
        if old == nil, isEmpty { return }
        scratch.valuesKey.withUnsafeBytes { key in
            if isEmpty {
                batch.delete(key: key)
            } else {
                scratch.value.withUnsafeBytes { batch.put(key: key, value: $0) }
            }
        }
        if tracksPending { pending[scratch.valuesKey] = isEmpty ? [] : scratch.value }
    }

    /// Puts (or deletes) index `id`'s entry of `userKey` for the value encoded as `encoding`.
    private func putEntry(_ id: UInt32, _ encoding: UnsafeRawBufferPointer, _ userKey: UnsafeRawBufferPointer, delete: Bool) {
        let scratch = scratch
        scratch.key.removeAll(keepingCapacity: true)
        scratch.key.append(KeySpace.systemMarker)
        scratch.key.append(IndexKeys.entryKind)
        Self.appendID(id, to: &scratch.key)
        scratch.key.append(contentsOf: encoding)
        scratch.key.append(contentsOf: userKey)
        scratch.key.withUnsafeBytes { key in
            if delete {
                batch.delete(key: key)
            } else {
                batch.put(key: key, value: UnsafeRawBufferPointer(start: nil, count: 0))
            }
        }
    }

    @inline(__always)
    private static func appendID(_ id: UInt32, to buffer: inout [UInt8]) {
        withUnsafeBytes(of: id.bigEndian) { buffer.append(contentsOf: $0) }
    }

    @inline(__always)
    private static func equal(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        a.count == b.count && (a.count == 0 || memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0)
    }

    /// Whether the encodings one after the other in `encodings` include `encoding`.
    private static func holds(_ encodings: UnsafeRawBufferPointer, _ encoding: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        while offset < encodings.count, let length = IndexValue.encodedLength(in: encodings, at: offset) {
            if length == encoding.count, equal(UnsafeRawBufferPointer(rebasing: encodings[offset..<(offset + length)]), encoding) {
                return true
            }
            offset += length
        }
        return false
    }

    /// Whether the encodings in `range` of `buffer` include `encoding`.
    private static func holds(_ buffer: UnsafeRawBufferPointer, _ range: Range<Int>, _ encoding: UnsafeRawBufferPointer) -> Bool {
        holds(UnsafeRawBufferPointer(rebasing: buffer[range]), encoding)
    }

    /// Whether the encodings in `range` of `buffer` include the `count` bytes at `offset`.
    private static func holds(_ buffer: [UInt8], _ range: Range<Int>, _ count: Int, at offset: Int) -> Bool {
        guard !range.isEmpty else { return false }
        return buffer.withUnsafeBytes { holds($0, range, UnsafeRawBufferPointer(rebasing: $0[offset..<(offset + count)])) }
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
    /// The funnel's index step: applies `write` with the index work of `changes` joined to it
    /// (the write alone when no change is in a space with indexes).
    ///
    /// - Throws: ``ModelStoreError/indexerFailed(index:key:message:)`` (nothing is written),
    ///   LevelDB's error reading a values entry, or applying the write.
    func apply(_ write: EngineWrite, _ changes: ChangeList, to engine: LevelDB, sync: Bool) throws {
        if case let .put(key, _) = write, let change = changes.only, change.kind == .set,
            let computed = change.indexValues, computed.generation == generation,
            computed.byID.count == computed.maintained.indexes.count
        {
            // Most sets: one record whose values were all computed from its model, for indexes
            // that have not changed since. No look-up, no decode, the key as the put carries it.
            assert(key.starts(with: change.space.prefix) && key.count == change.space.prefix.count + change.key.utf8.count)
            var work = IndexWork(engine: engine, write: write)
            defer { work.finish() }
            let userKey = UnsafeRawBufferPointer(rebasing: key[change.space.prefix.count...])
            try work.update(space: change.space, userKey: userKey, computed.byID, stored: computed.maintained.stored)
            return try engine.write(work.batch, sync: sync)
        }
        guard let work = try work(of: write, changes, engine: engine) else { return try write.apply(to: engine, sync: sync) }
        defer { work.finish() }
        try engine.write(work.batch, sync: sync)
    }

    /// The index work of `changes` joined to `write`; nil when no change is in a space with indexes.
    private func work(of write: EngineWrite, _ changes: ChangeList, engine: LevelDB) throws -> IndexWork? {
        guard !isEmpty else { return nil }
        var work: IndexWork?
        try changes.forEach { change in
            let maintained = maintained(by: change)
            let indexes = maintained.indexes
            guard !indexes.isEmpty else { return }
            if work == nil { work = IndexWork(engine: engine, write: write, tracksPending: changes.count > 1) }
            try change.space.withPhysicalKey(change.key) { physicalKey in
                let userKey = UnsafeRawBufferPointer(rebasing: physicalKey[change.space.prefix.count...])
                var values: [(id: UInt32, values: [IndexValue])]
                if change.kind != .set {
                    values = indexes.map { ($0.id, []) }
                } else if let computed = change.indexValues, computed.maintained === maintained,
                    computed.byID.count == indexes.count
                {
                    // Computed for exactly these indexes, each of them: taken whole. Values
                    // computed before an index changed are taken index by index below, so an
                    // index defined since (even under a dropped index's id) decodes the record.
                    values = computed.byID
                } else {
                    values = []
                    values.reserveCapacity(indexes.count)
                    for index in indexes {
                        if let computed = change.indexValues?.values(for: index) {
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
                try work!.update(space: change.space, userKey: userKey, values, stored: maintained.stored)
            }
        }
        return work
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
