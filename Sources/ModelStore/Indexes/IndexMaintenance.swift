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

/// What a write leaves under a key whose index work it carries.
enum RecordAfterWrite {
    /// A record: the write's (for a batch, its last put of the key), whose index values section
    /// holds these parts (nil: it has none).
    case written(section: UnsafeRawBufferPointer?)
    /// No record: a removal.
    case removed
    /// The stored record, unchanged: an index build, or a set whose write does not carry its record.
    case unchanged
}

/// The index work of one write: its batch, and the index state each key it changes is left in.
///
/// A record's old values in an index come from its own index values section when it has a part
/// for the index (RecordEnvelope.swift), else from its values entry (a record indexed by a
/// build, or written before sections or by a write that did not compute them): the values
/// entry is read only when some index the write maintains has no part in the old record. A key
/// without a record has no values: its values entry, if one was left (a removal outside the
/// write funnel: another LevelDB client, a release from before indexes), is not read, and
/// queries check an entry against the section of the record it names (Scope+IndexQueries.swift).
struct IndexWork {
    let engine: LevelDB
    let batch: LevelDBWriteBatch
    /// The write as it arrived, for the records a set carries.
    private let original: EngineWrite
    /// Each key the write has changed, by physical key, as it will be: later changes of the same
    /// key in one batch start from there.
    private var pending: [[UInt8]: Pending] = [:]
    /// The records the batch puts, by physical key, read once on the first set without values.
    private var putRecords: [[UInt8]: [UInt8]]?
    /// Whether one key may change twice in the write (a batch): only then is ``pending`` kept.
    private let tracksPending: Bool
    /// The thread's buffers, for every change of the write; given back by ``finish()``.
    private let scratch = IndexScratch.take()

    /// A key's index state after a change of an earlier step of the same write.
    private struct Pending {
        /// Every index's values, as parts (an index without a part has none).
        var parts: [UInt8]
        var valuesEntry: ValuesEntryState
    }

    /// What is known of a key's values entry.
    private enum ValuesEntryState {
        /// Not read: the record's section described every index the write needed.
        case unknown
        case absent
        /// Its value, format byte included.
        case present([UInt8])
    }

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

    /// Brings the entries of the record at `physicalKey` of `space` (whose user key starts at the
    /// space's prefix length), in each index of `changes`, to its values there, and its values
    /// entry to the values of every index of `changes` and `stored` the record left by the write
    /// (`after`) has no part for. Where that record has a part for an index, the part is its new
    /// values (they were computed by the same indexer); the values in `changes` are used only for
    /// the others. The parts of other ids in `stored` stay as they are, the rest go (their
    /// entries were cleared).
    ///
    /// A write trusts the old parts: their entries exist, so unchanged values write nothing. A
    /// build does not (`trustingStoredParts: false`): it puts every entry of the record's values.
    mutating func update(
        space: KeySpace, physicalKey: UnsafeRawBufferPointer, _ changes: [(id: UInt32, values: [IndexValue])],
        after: RecordAfterWrite, stored: Set<UInt32>, trustingStoredParts: Bool = true
    ) throws {
        let userKey = UnsafeRawBufferPointer(rebasing: physicalKey[space.prefix.count...])
        if tracksPending, let known = pending[Array(physicalKey)] {
            try known.parts.withUnsafeBytes { parts in
                try update(
                    space: space, physicalKey: physicalKey, userKey: userKey, changes, after: after, stored: stored,
                    trusting: trustingStoredParts, oldSection: parts, oldEntry: nil, entryState: known.valuesEntry)
            }
            return
        }
        try engine.withValue(forKey: physicalKey) { oldRecord in
            let oldSection = oldRecord.flatMap { IndexParts.section(ofRecord: $0, verifiedUnder: physicalKey) }
            // The values entry is read only for an index the old record does not describe.
            let needsEntry: Bool
            if oldRecord == nil {
                needsEntry = false
            } else if let oldSection {
                needsEntry = changes.contains { IndexParts.part($0.id, in: oldSection) == nil }
                    || stored.contains { IndexParts.part($0, in: oldSection) == nil }
            } else {
                needsEntry = true
            }
            guard needsEntry else {
                return try update(
                    space: space, physicalKey: physicalKey, userKey: userKey, changes, after: after, stored: stored,
                    trusting: trustingStoredParts, oldSection: oldSection, oldEntry: nil, entryState: .unknown,
                    oldRecordSection: oldSection)
            }
            let scratch = scratch
            scratch.valuesKey.removeAll(keepingCapacity: true)
            IndexKeys.appendValuesKey(in: space, userKey: userKey, to: &scratch.valuesKey)
            try scratch.valuesKey.withUnsafeBytes { key in
                try engine.withValue(forKey: key) { entry in
                    let entryParts = entry.flatMap { $0.first == IndexKeys.valuesFormat ? UnsafeRawBufferPointer(rebasing: $0[1...]) : nil }
                    try update(
                        space: space, physicalKey: physicalKey, userKey: userKey, changes, after: after, stored: stored,
                        trusting: trustingStoredParts, oldSection: oldSection, oldEntry: entryParts,
                        entryState: entry.map { .present(Array($0)) } ?? .absent, oldRecordSection: oldSection)
                }
            }
        }
    }

    /// ``update(space:physicalKey:_:after:stored:trustingStoredParts:)`` with the old state read:
    /// `oldSection` (the old record's parts, or a pending state's), the values entry's parts
    /// `oldEntry` (for the indexes `oldSection` has no part for) and what is known of it.
    private mutating func update(
        space: KeySpace, physicalKey: UnsafeRawBufferPointer, userKey: UnsafeRawBufferPointer,
        _ changes: [(id: UInt32, values: [IndexValue])], after: RecordAfterWrite, stored: Set<UInt32>, trusting: Bool,
        oldSection: UnsafeRawBufferPointer?, oldEntry: UnsafeRawBufferPointer?, entryState: ValuesEntryState,
        oldRecordSection: UnsafeRawBufferPointer? = nil
    ) throws {
        func oldPart(_ id: UInt32) -> UnsafeRawBufferPointer? {
            if let oldSection, let part = IndexParts.part(id, in: oldSection) { return part }
            return oldEntry.flatMap { IndexParts.part(id, in: $0) }
        }
        let newSection: UnsafeRawBufferPointer?
        switch after {
        case .written(let section): newSection = section
        case .removed: newSection = nil
        case .unchanged: newSection = oldRecordSection
        }
        let scratch = scratch
        // The new parts of the indexes the record's section does not describe, made here.
        scratch.value.removeAll(keepingCapacity: true)
        scratch.value.append(IndexKeys.valuesFormat)
        var uncovered = false
        for (id, values) in changes {
            let old = trusting ? oldPart(id) : nil
            if case .removed = after {
                if let old { forEachEncoding(in: old) { putEntry(id, $0, userKey, delete: true) } }
                continue
            }
            if let new = newSection.flatMap({ IndexParts.part(id, in: $0) }) {
                diff(id, old: old, new: new, userKey)
                continue
            }
            uncovered = true
            let partStart = scratch.value.count
            IndexParts.append(id: id, values: values, to: &scratch.value)
            var offset = partStart + 4
            let length = scratch.value.withUnsafeBytes { LEB128.read($0, at: &offset) } ?? 0
            scratch.value.withUnsafeBytes { diff(id, old: old, new: UnsafeRawBufferPointer(rebasing: $0[offset..<(offset + length)]), userKey) }
            if length == 0 { scratch.value.removeSubrange(partStart...) }
        }
        if case .removed = after {
            // The record is gone, so no index may keep an entry for it: also not an index this
            // program does not define (another program's). Its old values are known only here:
            // they were in the record's section (or its values entry), which go with it, and
            // that program's next write of the key finds no record and assumes no old values.
            for id in stored where !changes.contains(where: { $0.id == id }) {
                if trusting, let old = oldPart(id) { forEachEncoding(in: old) { putEntry(id, $0, userKey, delete: true) } }
            }
            // No record: nothing reads its values entry any more.
            if case .present = entryState { writeValuesEntry(space: space, userKey: userKey, delete: true) }
            if tracksPending {
                // A values entry this write did not read stays unknown: a later set of the key in
                // the same batch that leaves an index undescribed deletes it blindly.
                let after: ValuesEntryState = if case .unknown = entryState { .unknown } else { .absent }
                pending[Array(physicalKey)] = Pending(parts: [], valuesEntry: after)
            }
            return
        }
        // The indexes of other programs (and of builds) that this write does not change keep
        // their parts, in the values entry unless the record's section describes them.
        for id in stored where !changes.contains(where: { $0.id == id }) {
            guard newSection.flatMap({ IndexParts.part(id, in: $0) }) == nil else { continue }
            uncovered = true
            if let old = oldPart(id), !old.isEmpty { IndexParts.append(id: id, encodings: old, to: &scratch.value) }
        }
        let isEmpty = scratch.value.count == 1
        var entryAfter = entryState
        switch entryState {
        case .present(let old):
            if isEmpty {
                writeValuesEntry(space: space, userKey: userKey, delete: true)
                entryAfter = .absent
            } else if old != scratch.value {
                writeValuesEntry(space: space, userKey: userKey)
                entryAfter = .present(scratch.value)
            }
        case .absent, .unknown:
            if !isEmpty {
                writeValuesEntry(space: space, userKey: userKey)
                entryAfter = .present(scratch.value)
            } else if uncovered, case .unknown = entryState {
                // An index the record does not describe has no values: a values entry left
                // behind (never read, see above) must not speak for it.
                writeValuesEntry(space: space, userKey: userKey, delete: true)
                entryAfter = .absent
            }
        }
        if tracksPending {
            var parts: [UInt8] = []
            for (id, _) in changes {
                if let new = newSection.flatMap({ IndexParts.part(id, in: $0) }) {
                    IndexParts.append(id: id, encodings: new, to: &parts)
                }
            }
            _ = scratch.value.withUnsafeBytes { entry in
                IndexParts.forEach(in: UnsafeRawBufferPointer(rebasing: entry[1...])) { id, encodings in
                    IndexParts.append(id: id, encodings: encodings, to: &parts)
                    return true
                }
            }
            if let newSection {
                IndexParts.forEach(in: newSection) { id, encodings in
                    if !changes.contains(where: { $0.id == id }) { IndexParts.append(id: id, encodings: encodings, to: &parts) }
                    return true
                }
            }
            pending[Array(physicalKey)] = Pending(parts: parts, valuesEntry: entryAfter)
        }
    }

    /// Deletes the entries of index `id` in `old` that `new` does not hold, and puts those of
    /// `new` that `old` does not (every one, for no `old`).
    private func diff(_ id: UInt32, old: UnsafeRawBufferPointer?, new: UnsafeRawBufferPointer, _ userKey: UnsafeRawBufferPointer) {
        if let old {
            if Self.equal(old, new) { return }
            forEachEncoding(in: old) { if !IndexParts.contains(new, $0) { putEntry(id, $0, userKey, delete: true) } }
        }
        forEachEncoding(in: new) { encoding in
            if let old, IndexParts.contains(old, encoding) { return }
            putEntry(id, encoding, userKey, delete: false)
        }
    }

    private func forEachEncoding(in encodings: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) -> Void) {
        var offset = 0
        while offset < encodings.count, let length = IndexValue.encodedLength(in: encodings, at: offset) {
            body(UnsafeRawBufferPointer(rebasing: encodings[offset..<(offset + length)]))
            offset += length
        }
    }

    /// Puts `scratch.value` as the values entry of `userKey`, or deletes the entry.
    private func writeValuesEntry(space: KeySpace, userKey: UnsafeRawBufferPointer, delete: Bool = false) {
        let scratch = scratch
        scratch.valuesKey.removeAll(keepingCapacity: true)
        IndexKeys.appendValuesKey(in: space, userKey: userKey, to: &scratch.valuesKey)
        scratch.valuesKey.withUnsafeBytes { key in
            if delete {
                batch.delete(key: key)
            } else {
                scratch.value.withUnsafeBytes { batch.put(key: key, value: $0) }
            }
        }
    }

    /// Puts (or deletes) index `id`'s entry of `userKey` for the value encoded as `encoding`.
    private func putEntry(_ id: UInt32, _ encoding: UnsafeRawBufferPointer, _ userKey: UnsafeRawBufferPointer, delete: Bool) {
        let scratch = scratch
        scratch.key.removeAll(keepingCapacity: true)
        scratch.key.append(KeySpace.systemMarker)
        scratch.key.append(IndexKeys.entryKind)
        withUnsafeBytes(of: id.bigEndian) { scratch.key.append(contentsOf: $0) }
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
    private static func equal(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        a.count == b.count && (a.count == 0 || memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0)
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
    /// The funnel's index step: applies `write` with the index work of `changes` joined to it
    /// (the write alone when no change is in a space with indexes).
    ///
    /// - Throws: ``ModelStoreError/indexerFailed(index:key:message:)`` (nothing is written),
    ///   LevelDB's error reading an old record or values entry, or applying the write.
    func apply(_ write: EngineWrite, _ changes: ChangeList, to engine: LevelDB, sync: Bool) throws {
        if case let .put(key, value) = write, let change = changes.only, change.kind == .set,
            let computed = change.indexValues, computed.generation == generation,
            computed.byID.count == computed.maintained.indexes.count
        {
            // Most sets: one record whose values were all computed from its model, for indexes
            // that have not changed since, and are in its section. No look-up, no decode.
            assert(key.starts(with: change.space.prefix) && key.count == change.space.prefix.count + change.key.utf8.count)
            var work = IndexWork(engine: engine, write: write)
            defer { work.finish() }
            try work.update(
                space: change.space, physicalKey: key, computed.byID,
                after: .written(section: IndexParts.section(ofRecord: value, verifiedUnder: nil)), stored: computed.maintained.stored)
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
            // A space with indexes only another program defines still has their old values to
            // keep (an overwrite) or their entries to remove (a removal).
            guard !maintained.isEmpty else { return }
            if work == nil { work = IndexWork(engine: engine, write: write, tracksPending: changes.count > 1) }
            try change.space.withPhysicalKey(change.key) { physicalKey in
                guard change.kind == .set else {
                    return try work!.update(
                        space: change.space, physicalKey: physicalKey, indexes.map { ($0.id, []) }, after: .removed,
                        stored: maintained.stored)
                }
                // The record the key is left with: the write's last put of it, or the stored one.
                let record = work!.record(at: physicalKey)
                try (record ?? []).withUnsafeBytes { recordBytes in
                    let section = record == nil ? nil : IndexParts.section(ofRecord: recordBytes, verifiedUnder: nil)
                    var values: [(id: UInt32, values: [IndexValue])] = []
                    values.reserveCapacity(indexes.count)
                    for index in indexes {
                        if section.flatMap({ IndexParts.part(index.id, in: $0) }) != nil {
                            // The record's section holds its values: nothing to compute.
                            values.append((index.id, []))
                        } else if let computed = change.indexValues?.values(for: index) {
                            // Computed from the model for this same index (see `values(for:)`).
                            values.append((index.id, computed))
                        } else if record != nil {
                            let decoded = try index.values(ofRecord: recordBytes, key: change.key, keyBytes: physicalKey)
                            values.append((index.id, decoded ?? []))
                        }
                        // Else a set whose record this write does not carry: nothing to judge by,
                        // the index's part stays.
                    }
                    try work!.update(
                        space: change.space, physicalKey: physicalKey, values,
                        after: record == nil ? .unchanged : .written(section: section), stored: maintained.stored)
                }
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
