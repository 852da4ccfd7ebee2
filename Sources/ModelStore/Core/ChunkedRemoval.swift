/// One chunk of a removal loop: what it deletes, what that changes, and the engine for the reads
/// a decision needs (the record a tag-index entry names, say).
struct RemovalChunk {
    /// The database's engine, current for the whole chunk (the exclusive write gate is held).
    let engine: LevelDB
    /// Whether removed keys are worth turning into ``KeyChange``s: only when something keeps
    /// keys in memory (the object cache) or someone observes changes. A sweep over a million
    /// records without either makes no key strings.
    let tracksKeys: Bool
    /// The database's indexes: a removed record in an indexed key space is always named to
    /// the funnel, which removes its entries.
    let indexes: IndexRegistry
    /// Whether any key space has indexes: decided once per chunk, which holds the exclusive
    /// write gate that every change of the indexes takes.
    private let hasIndexes: Bool
    fileprivate let batch = LevelDBWriteBatch()
    fileprivate var changes = ChangeList()

    fileprivate init(engine: LevelDB, tracksKeys: Bool, indexes: IndexRegistry) {
        self.engine = engine
        self.tracksKeys = tracksKeys
        self.indexes = indexes
        hasIndexes = !indexes.isEmpty
    }

    /// Deletes `key` (a record's or a system key's) in the chunk's atomic write, reporting
    /// `change` (nil: a key no user sees, or one the caller does not track).
    mutating func remove(_ key: UnsafeRawBufferPointer, reporting change: KeyChange? = nil) {
        batch.delete(key: key)
        if let change {
            changes.append(change)
        } else if hasIndexes, let removal = indexes.removal(ofPhysical: key) {
            changes.append(removal)
        }
    }
}

extension OpenDatabase {
    /// How many keys a removal loop looks at per chunk. Each chunk holds the exclusive write
    /// gate (a few milliseconds at this size), so writers never wait long.
    static let removalChunkSize = 4_096

    /// The one chunked removal loop: walks `range` in chunks of ``removalChunkSize`` keys, each
    /// under the exclusive write gate with a fresh iterator (so what it sees is current and no
    /// iterator stays open across writes), lets `visit` pick what to delete, and deletes it in
    /// one atomic write per chunk through the write funnel. Every bulk removal uses it: a prefix
    /// or a collection (`removeObjects(withPrefix:)`, `removeAllObjects()`), a tag, sweeps and
    /// limits, and the tag index's pruning.
    ///
    /// Each chunk resumes just after the last key the previous one looked at. Keys written into
    /// the range while the loop runs may or may not be visited.
    ///
    /// - Parameters:
    ///   - range: The physical keys to walk.
    ///   - visit: Looks at one key and its value; calls ``RemovalChunk/remove(_:reporting:)`` for
    ///     what goes. What it sees is provisional until its chunk is written: a chunk that
    ///     throws writes nothing.
    /// - Throws: LevelDB's and the write gate's errors; what `visit` throws.
    func removeInChunks(
        _ range: KeyRange, sync: Bool, measuring pass: MeasuringPass? = nil,
        _ visit: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer, _ chunk: inout RemovalChunk) throws
            -> Void
    ) throws(ModelStoreError) {
        _ = try removeInChunks(range, from: range.lowerBound, sync: sync, measuring: pass, visit: { key, value, chunk in
            try visit(key, value, &chunk)
            return true
        }, finishingChunk: { _ in })
    }

    /// The loop of ``removeInChunks(_:sync:_:)``, starting at `start` (within `range`) and
    /// stopping early when `visit` returns false: eviction's walk (Eviction/), which goes on
    /// from where the last one stopped and only as far as it must. `finishingChunk` runs before
    /// each chunk's write, with what the chunk looked at still current (eviction removes the
    /// record it picked from a window there). Returns the key to resume at, or nil when the walk
    /// reached the end of `range`. A `pass` that measures the records moves its cursor past each
    /// chunk under the chunk's gate (MeasuringPass.swift).
    func removeInChunks(
        _ range: KeyRange, from start: [UInt8], sync: Bool, measuring pass: MeasuringPass? = nil,
        visit: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer, _ chunk: inout RemovalChunk) throws
            -> Bool,
        finishingChunk: (inout RemovalChunk) throws -> Void
    ) throws(ModelStoreError) -> [UInt8]? {
        var resumeKey = start
        while true {
            let tracksKeys = cache != nil || changes.isObserved || sharedTier != nil
            let (next, stopped) = try commitExclusively { hold -> ([UInt8]?, Bool) in
                let iterator = try hold.engine.makeIterator(snapshot: nil, fillCache: false)
                try iterator.seek(to: resumeKey)
                var chunk = RemovalChunk(engine: hold.engine, tracksKeys: tracksKeys, indexes: indexes)
                var pastEnd = false
                var stoppedAfter: [UInt8]? = nil
                let (seen, lastKey) = try iterator.scanForward(limit: Self.removalChunkSize) { key, value in
                    if range.isPastEnd(key, reverse: false) {
                        pastEnd = true
                        return false
                    }
                    guard try visit(key, value, &chunk) else {
                        stoppedAfter = Array(key)
                        return false
                    }
                    return true
                }
                try finishingChunk(&chunk)
                if chunk.batch.count > 0 { try hold.write(.batch(chunk.batch), chunk.changes, sync: sync) }
                let next: ([UInt8]?, Bool)
                if let stoppedAfter {
                    next = (stoppedAfter + [0], true)
                } else if !pastEnd, seen == Self.removalChunkSize, let lastKey {
                    next = (lastKey + [0], false)  // the smallest key after the last one looked at
                } else {
                    next = (nil, false)
                }
                pass?.advance(to: next.0)
                return next
            }
            guard let next else { return nil }
            if stopped { return next }
            resumeKey = next
        }
    }
}
