// MARK: - The write funnel
//
// Every write that changes a database's records reaches LevelDB here: sets, batches, imports,
// `refresh`, `replaceMetadata`, removals of keys, prefixes, collections and tags, purges of
// expired records by reads, sweeps and limits, the read-through's stores, and ModelStore's own
// system records. A write arrives as what LevelDB must do (one put or delete, LevelDB's cheapest
// calls, or one atomic batch) and the list of keys it changes and how (`KeyChange`). The funnel
// takes the write gate, applies it, then does what every write owes the layers above: forgets
// the keys in memory (object cache, remembered "not found", fail-safe throttle) and reports the
// changes to observers and to the shared tier (`SharedTier/`), which publishes invalidations. This is where index
// entries join a record's atomic write (IndexMaintenance.swift), and where payloads will be sealed.

/// One key a write changes, and how.
///
/// Constants without default values, each initialized once: with `var`s and defaults, the
/// initializer built the change and then copied it whole (a retain and a release of its key, its
/// key space and its index values), which was most of what the funnel added to a put.
struct KeyChange {
    /// The key, as the user wrote it.
    let key: String
    /// The key space it lives in.
    let space: KeySpace
    /// What happened to it.
    let kind: ModelStore.Change.Kind
    /// A removal whose report depends on what was stored: `.removed` for a live record,
    /// `.expired` for an expired one, nothing for none. Resolved by the funnel, under the
    /// exclusive write gate, only when someone observes changes.
    let dependsOnStoredRecord: Bool
    /// For a removal because the read-through's source has no such model: remember that until
    /// `until` (seconds since the reference date, judged at `now`) instead of forgetting it.
    let remembersNotFound: (until: Double, now: Double)?
    /// For a set in a key space with indexes: the new model's index values, computed before the
    /// write; nil: the funnel decodes the record the write carries (see IndexMaintenance.swift).
    let indexValues: ComputedIndexValues?

    init(
        _ key: String, in space: KeySpace, _ kind: ModelStore.Change.Kind, dependsOnStoredRecord: Bool = false,
        remembersNotFound: (until: Double, now: Double)? = nil, indexValues: ComputedIndexValues? = nil
    ) {
        self.key = key
        self.space = space
        self.kind = kind
        self.dependsOnStoredRecord = dependsOnStoredRecord
        self.remembersNotFound = remembersNotFound
        self.indexValues = indexValues
    }

    /// The change as observers see it.
    var change: ModelStore.Change { ModelStore.Change(key: key, kind: kind, collection: space.collection) }
}

/// The keys one write changes: one change kept inline (no array for a single-key write), more in
/// order, and whole prefixes of a key space (a removal by prefix forgets keys never stored too).
struct ChangeList {
    private var single: KeyChange?
    private var many: [KeyChange] = []
    /// Key spaces and key prefixes whose every key the write may have changed.
    private(set) var prefixes: [(space: KeySpace, prefix: String)] = []
    /// How many changes the list holds: kept, not derived from `single`, whose comparison with
    /// nil copied the whole change (its key, key space and index values) on every call.
    private(set) var count = 0
    /// Whether a change remembers its key as not found (``KeyChange/remembersNotFound``).
    private(set) var remembersNotFound = false

    init() {}

    init(_ change: consuming KeyChange) {
        remembersNotFound = change.remembersNotFound != nil
        single = change
        count = 1
    }

    var isEmpty: Bool { count == 0 && prefixes.isEmpty }

    /// The write's one change, when it changes one key and no prefix.
    var only: KeyChange? { prefixes.isEmpty ? single : nil }

    mutating func append(_ change: consuming KeyChange) {
        if change.remembersNotFound != nil { remembersNotFound = true }
        count += 1
        if count == 1 {
            single = change
            return
        }
        if let first = single.take() {
            many.reserveCapacity(4)
            many.append(first)
        }
        many.append(change)
    }

    /// Makes room for `count` changes, for a list that will hold that many (an import's chunk).
    mutating func reserveCapacity(_ count: Int) {
        many.reserveCapacity(count)
    }

    mutating func append(contentsOf other: ChangeList) {
        // Into an empty list (a hold's first write): the other list itself, its array shared
        // with one retain instead of each change copied (a retain of its key and key space).
        guard !isEmpty else {
            self = other
            return
        }
        other.forEach { append($0) }
        prefixes += other.prefixes
    }

    mutating func forget(prefix: String, in space: KeySpace) {
        prefixes.append((space, prefix))
    }

    func forEach(_ body: (KeyChange) throws -> Void) rethrows {
        if let single { try body(single) }
        for change in many { try body(change) }
    }

    /// Whether a change's report depends on the stored record.
    var hasDependentReports: Bool {
        if let single { return single.dependsOnStoredRecord }
        return many.contains { $0.dependsOnStoredRecord }
    }

    /// The changes as observers see them.
    var reports: [ModelStore.Change] {
        var reports: [ModelStore.Change] = []
        reports.reserveCapacity(count)
        forEach { reports.append($0.change) }
        return reports
    }
}

/// What a write does to LevelDB.
enum EngineWrite {
    case put(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)
    case delete(key: UnsafeRawBufferPointer)
    case batch(LevelDBWriteBatch)

    /// The bytes of the user records the write stores (keys and values), which the limits count
    /// (Eviction/LimitEnforcer.swift): a batch's tag-index and outbox entries are not records.
    var recordByteCount: Int {
        switch self {
        case let .put(key, value): LevelDBWriteBatch.isRecordKey(key) ? key.count + value.count : 0
        case .delete: 0
        case let .batch(batch): batch.recordBytes
        }
    }

    /// Applies the write to `engine`: the funnel's one call into LevelDB.
    func apply(to engine: LevelDB, sync: Bool) throws {
        switch self {
        case let .put(key, value): try engine.put(key: key, value: value, sync: sync)
        case let .delete(key): try engine.delete(key: key, sync: sync)
        case let .batch(batch): try engine.write(batch, sync: sync)
        }
    }
}

/// A hold of the exclusive write gate: reads through ``engine`` stay current until the hold
/// ends, because no other writer runs meanwhile. Writes go through ``write(_:_:sync:)``.
struct ExclusiveWrite {
    /// The database's engine, for the reads the write depends on.
    let engine: LevelDB
    /// The database's indexes, whose entries join every write of the hold.
    let indexes: IndexRegistry
    /// The database's shared tier, whose outbox entries join every write of the hold.
    let sharedTier: SharedTierDatabase?
    /// The database's limits, which count each write's records with it, under the gate.
    let limits: LimitEnforcer?
    /// What the hold wrote, reported when it ends.
    fileprivate(set) var written = ChangeList()
    /// What the hold tried to write, forgotten in memory even if the write failed.
    fileprivate(set) var attempted = ChangeList()

    /// Forgets `change`'s key in memory when the hold ends, without writing or reporting
    /// anything: a rewrite that found nothing to rewrite still ends what memory holds of the key.
    mutating func forget(_ change: KeyChange) {
        attempted.append(change)
    }

    /// Applies `write`, which changes `changes`.
    mutating func write(_ write: EngineWrite, _ changes: ChangeList, sync: Bool) throws {
        attempted.append(contentsOf: changes)
        // The outbox step: what the fleet is owed joins the write (FleetOutbox.swift).
        let write = sharedTier?.outboxed(write, changes) ?? write
        // The index step: the entries of records in indexed key spaces join the write.
        try indexes.apply(write, changes, to: engine, sync: sync)
        // Counted here, write by write: each record's key and bytes, against a pass's cursor.
        limits?.countStored(write, changes)
        written.append(contentsOf: changes)
    }
}

extension OpenDatabase {
    /// Applies `write`, which changes `changes`, under the shared write gate (LevelDB groups
    /// concurrent writers itself), then forgets those keys in memory and reports the changes.
    ///
    /// When someone observes changes and a removal's report depends on the stored record, the
    /// records are read and the write applied under the exclusive gate instead, so the reports
    /// say what the write really removed.
    ///
    /// - Throws: What the write gate throws (``ModelStoreError/writesDisabled(path:message:)``
    ///   after an earlier failure, ``ModelStoreError/closed(path:)``, a removed directory) or
    ///   LevelDB's error; the keys are forgotten in memory either way.
    ///
    /// - Parameter reader: How the scope that writes judges expiry (its policy and clock), for
    ///   reports that depend on the stored record; nil for writes that have none.
    func commit(
        _ write: EngineWrite, _ changes: ChangeList, sync: Bool, judgedBy reader: RecordReader? = nil
    ) throws(ModelStoreError) {
        func commitExclusively() throws(ModelStoreError) {
            try self.commitExclusively { hold in
                var resolved = changes
                if let reader, self.changes.isObserved, changes.hasDependentReports {
                    resolved = try Self.resolve(changes, in: hold.engine, judgedBy: reader)
                }
                try hold.write(write, resolved, sync: sync)
            }
        }
        if reader != nil && self.changes.isObserved && changes.hasDependentReports {
            return try commitExclusively()
        }
        // Index entries are read and written under the exclusive gate (IndexMaintenance.swift).
        if indexes.maintains(changes) {
            return try commitIndexed(write, changes, sync: sync)
        }
        defer { forget(changes) }
        // The outbox step: what the fleet is owed joins the write (FleetOutbox.swift). Applied
        // as it is without a tier: `outboxed ?? write` copied the write on every call.
        let outboxed = sharedTier?.outboxed(write, changes)
        let applied = try self.write { engine -> Bool in
            // An index defined since the check above (under the exclusive gate) needs its entries.
            guard !indexes.maintains(changes) else { return false }
            if let outboxed {
                try outboxed.apply(to: engine, sync: sync)
            } else {
                try write.apply(to: engine, sync: sync)
            }
            // Counted under the gate, with the write: a measurement never sees one without the other.
            limits?.countStored(write, changes)
            return true
        }
        guard applied else { return try commitExclusively() }
        report(changes)
        sharedTier?.didCommit(changes)
        if let limits { limits.didCommit(changes, in: self) }
    }

    /// ``commit(_:_:sync:judgedBy:)`` for a write that changes one key (a set), with no report
    /// that depends on the stored record. What a database without a shared tier or indexes does
    /// not use is decided once per write, and the change is put in a list only when something
    /// needs it: the list, built for every put, cost more than the rest of the funnel.
    func commit(_ write: EngineWrite, _ change: KeyChange, sync: Bool) throws(ModelStoreError) {
        guard sharedTier == nil, indexes.isEmpty else { return try commit(write, ChangeList(change), sync: sync) }
        // As `commit(_:_:sync:judgedBy:)`: forgotten after the write (also on failure), then reported.
        defer { if keepsKeysInMemory || change.remembersNotFound != nil { forget(change) } }
        let applied = try self.write { engine -> Bool in
            // An index defined since the check above (under the exclusive gate) needs its entries.
            guard indexes.isEmpty else { return false }
            try write.apply(to: engine, sync: sync)
            limits?.countStored(write, change)
            return true
        }
        guard applied else { return try commit(write, ChangeList(change), sync: sync) }
        if self.changes.isObserved { self.changes.publish([change.change]) }
        limits?.didCommit(write, change, in: self)
    }

    /// ``commit(_:_:sync:judgedBy:)`` for a write whose changes have index work, when no report
    /// depends on the stored record: `commitExclusively` without its hold's change lists, which
    /// an indexed put would pay for on every call.
    private func commitIndexed(_ write: EngineWrite, _ changes: ChangeList, sync: Bool) throws(ModelStoreError) {
        let write = sharedTier?.outboxed(write, changes) ?? write
        try exclusiveWrite { engine in
            // Forgotten before the gate is let go, as `commitExclusively` does.
            defer { forget(changes) }
            try indexes.apply(write, changes, to: engine, sync: sync)
            limits?.countStored(write, changes)
        }
        report(changes)
        sharedTier?.didCommit(changes)
        if let limits { limits.didCommit(changes, in: self) }
    }

    /// Stores one of ModelStore's own system records (a compression dictionary, a recorded
    /// policy) through the funnel: it changes no user's key.
    func commitSystemRecord(key: [UInt8], value: [UInt8], sync: Bool) throws(ModelStoreError) {
        do {
            try key.withUnsafeBytes { key in
                try value.withUnsafeBytes { value in try commit(.put(key: key, value: value), ChangeList(), sync: sync) }
            }
        } catch let error as ModelStoreError {
            throw error
        } catch {
            throw .io(path: path, message: String(describing: error))
        }
    }

    /// Runs `body` under the exclusive write gate, for a write that depends on what it reads
    /// (a purge, a rewrite, a chunk of a removal loop); what `body` writes through the hold is
    /// forgotten in memory before the gate is let go (so a remembered "not found" is set before
    /// any later write can forget it) and reported after, even if `body` then throws.
    ///
    /// An error `body` throws counts as a failed write and disables the database's writes (see
    /// ``write(_:)``): a refusal of the caller's (a damaged record, say) is returned, not thrown.
    func commitExclusively<Result>(_ body: (inout ExclusiveWrite) throws -> Result) throws(ModelStoreError) -> Result {
        var written = ChangeList()
        defer {
            report(written)
            sharedTier?.didCommit(written)
            // After the gate is let go: an eviction the write calls for takes it exclusively.
            limits?.didCommit(written, in: self)
        }
        return try exclusiveWrite { engine in
            var hold = ExclusiveWrite(engine: engine, indexes: indexes, sharedTier: sharedTier, limits: limits)
            defer {
                forget(hold.attempted)
                written = hold.written
            }
            return try body(&hold)
        }
    }

    /// Forgets, in memory, every key of `space` that starts with `prefix`: after a removal by
    /// prefix (or of a whole key space), whose chunks named only the records they removed, so
    /// that a remembered "not found" of a key never stored goes too.
    func didRemove(prefix: String, in space: KeySpace) {
        invalidate(prefix: prefix, in: space)
        sharedTier?.didRemove(prefix: prefix, in: space)
    }

    /// Runs `body`, a removal by prefix, tag or key space with its publication, as one change
    /// for the shared tier's queued fills (``SharedTierDatabase/bulkRemoval(_:)``); just `body`
    /// without a tier.
    func asBulkRemoval<Result>(_ body: () throws -> Result) rethrows -> Result {
        guard let sharedTier else { return try body() }
        return try sharedTier.bulkRemoval(body)
    }

    /// Tells the shared tier, if any, that every record tagged `tag` stored at or before
    /// `version` was removed: the chunks named only the records this process had.
    func didRemove(tag: String, version: SharedTierVersion?) {
        sharedTier?.didRemove(tag: tag, version: version)
    }

    /// Forgets every key of `changes` in memory: decoded models, remembered "not found" answers
    /// and fail-safe throttles.
    private func forget(_ changes: ChangeList) {
        // Decided once per write, not per key: nothing in memory, and nothing to remember.
        guard !changes.isEmpty, keepsKeysInMemory || changes.remembersNotFound else { return }
        if changes.count == 1 {
            changes.forEach { forget($0) }
        } else if changes.count > 1 {
            var keys: [String] = []
            var spaces: [KeySpace] = []
            keys.reserveCapacity(changes.count)
            spaces.reserveCapacity(changes.count)
            changes.forEach {
                guard $0.remembersNotFound == nil else { return forget($0) }
                keys.append($0.key)
                spaces.append($0.space)
            }
            invalidate(keys, spaces: spaces)
        }
        for (space, prefix) in changes.prefixes { invalidate(prefix: prefix, in: space) }
    }

    /// Forgets one key in memory, or for a removal the source asked for, remembers it as not found.
    private func forget(_ change: KeyChange) {
        guard let notFound = change.remembersNotFound else { return invalidate(change.key, in: change.space) }
        cache?.invalidate(change.key, in: change.space)
        failSafe.forget(change.key, in: change.space)
        self.notFound.remember(change.key, in: change.space, until: notFound.until, now: notFound.now)
    }

    /// Reports `changes` to observers; a write with no observer pays one check.
    private func report(_ changes: ChangeList) {
        guard self.changes.isObserved, changes.count > 0 else { return }
        self.changes.publish(changes.reports)
    }

    /// The changes of a write about to be applied, with each removal whose report depends on the
    /// stored record resolved by reading it (after the write's earlier operations on the same
    /// key, which are told apart by their bytes): live `.removed`, expired `.expired`, none left out.
    private static func resolve(
        _ changes: ChangeList, in engine: LevelDB, judgedBy reader: RecordReader
    ) throws -> ChangeList {
        let now = reader.now()
        let timeToLive = reader.timeToLive
        var earlier: [ByteKey: RecordState] = [:]  // state after the write's earlier operations
        var resolved = ChangeList()
        for prefix in changes.prefixes { resolved.forget(prefix: prefix.prefix, in: prefix.space) }
        try changes.forEach { change in
            let byteKey = ByteKey(change.key, in: change.space)
            guard change.dependsOnStoredRecord else {
                earlier[byteKey] = change.kind == .set ? .live : .missing
                resolved.append(change)
                return
            }
            let state = try earlier[byteKey] ?? change.space.withPhysicalKey(change.key) { keyBytes in
                try engine.withValue(forKey: keyBytes) { RecordState($0, key: keyBytes, now: now, timeToLive: timeToLive) }
            }
            earlier[byteKey] = .missing
            switch state {
            case .live: resolved.append(KeyChange(change.key, in: change.space, .removed))
            case .expired: resolved.append(KeyChange(change.key, in: change.space, .expired))
            case .missing: break
            }
        }
        return resolved
    }
}
