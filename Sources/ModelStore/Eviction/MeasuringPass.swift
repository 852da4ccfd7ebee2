// MARK: - Measuring while writes go on
//
// The enforcer's count is measured again by passes over the records' headers (the open's, a
// sweep's, a walk that went round the whole database) while writes and evictions go on. A change
// made while a pass runs must be counted once: in what the pass reads, or in what was counted
// since it began, never both. Counted twice, eviction removed as many records more than the limits
// asked (`IndexMaintenanceTests/bulkRemovals` left 9 of its 10 records about once in 150 runs).
// Three rules keep it exact:
//
// 1. Every change is counted under the write gate, with the write that made it (the funnel, and
//    eviction's chunks). No pass can begin, or read a chunk, between a write and its count.
// 2. A pass begins under the exclusive gate: what was counted before is in what it reads.
// 3. A pass in chunks (a sweep, a walk) reads each chunk under the exclusive gate and moves its
//    cursor there. A change counted meanwhile to a key at or past the cursor will be read by the
//    pass, so it is set aside rather than counted a second time.
//
// The count is kept as an offset plus the sum of every change counted since the open. A
// measurement replaces the offset only (the measured records, less the changes counted before
// the pass began and those set aside), so two passes that overlap never take each other's
// correction for a change.
//
// A measurement that began before the one that last replaced the offset is dropped when it
// finishes: removals the count does not see (expired records a sweep or a read removed) made
// before the later one began are in what the later one read, and may not be in what the earlier
// one read. Replacing the offset last, a sweep that waited for the walking lock while a sweep
// begun after it went first undid the other's measurement: 500 records it had read live, the
// other had removed as expired, were counted again, and eviction would have removed as many
// live records (`LimitCountAttackTests/olderSweepFinishingLast`).

/// A pass over the records in chunks that measures them for the limits.
final class MeasuringPass: @unchecked Sendable {
    // @unchecked: the cursor and what is set aside are guarded by the enforcer's `passLock`.

    /// The keys the pass reads, in order.
    let range: KeyRange
    /// The changes counted before the pass began.
    let countedBefore: (bytes: Int, count: Int)
    /// When the pass began among the enforcer's measurements: a later one's result stands.
    let ticket: UInt64
    /// Guarded by `passLock`: the first key the pass has not read yet; nil once it has read the range.
    fileprivate var resumeKey: [UInt8]?
    /// Guarded by `passLock`: changes counted during the pass to keys it reads after they were made.
    fileprivate var setAside = (bytes: 0, count: 0)
    private let passLock: Lock

    fileprivate init(range: KeyRange, countedBefore: (bytes: Int, count: Int), ticket: UInt64, passLock: Lock) {
        self.range = range
        self.countedBefore = countedBefore
        self.ticket = ticket
        self.passLock = passLock
        resumeKey = range.lowerBound
    }

    /// Whether the pass has yet to read `key`; the caller holds `passLock`.
    fileprivate func willRead(_ key: UnsafeRawBufferPointer) -> Bool {
        guard let resumeKey else { return false }
        return KeyRange.compare(key, resumeKey) >= 0 && !range.isPastEnd(key, reverse: false)
    }

    /// Moves the cursor past a chunk: the pass goes on at `next`, or has read the range (nil).
    /// The caller holds the exclusive write gate, under which the chunk was read.
    func advance(to next: [UInt8]?) {
        passLock.withLock { resumeKey = next }
    }
}

extension LimitEnforcer {
    /// Record bytes and records of every change counted since the open.
    var counted: (bytes: Int, count: Int) {
        (Int(Int64(bitPattern: changedBytes.load())), Int(Int64(bitPattern: changedCount.load())))
    }

    /// Counts, under the write gate, `records` records stored (negative: evicted) in `bytes`
    /// bytes (negative likewise) under the LevelDB key `key`.
    @inline(__always)
    func count(records: Int, bytes: Int, key: UnsafeRawBufferPointer) {
        changedBytes.add(UInt64(bitPattern: Int64(bytes)))
        changedCount.add(UInt64(bitPattern: Int64(records)))
        if records > 0 { storedSinceMeasured.add(UInt64(records)) }
        if passesRunning.load() != 0 { setAside(records: records, bytes: bytes, key: key) }
    }

    /// Counts, under the write gate, a committed write that stored the records `changes` sets:
    /// the bytes of its records' puts (``EngineWrite/recordByteCount``). While a pass runs, each
    /// record is checked against its cursor with its own bytes, read back from the batch. (An
    /// equal share of the write's bytes per record, as this once did, set aside too much or too
    /// little when a batch's records differ in size and fall either side of the cursor: a sweep
    /// beside batches of a 1-byte and a 3,000-byte record left the bytes 109,500 too high,
    /// `LimitCountAttackTests/unevenBatchesBesideASweep`.)
    func countStored(_ write: EngineWrite, _ changes: ChangeList) {
        var records = 0
        changes.forEach { if $0.kind == .set { records += 1 } }
        guard records > 0 else { return }
        if case let .put(key, _) = write { return count(records: 1, bytes: write.recordByteCount, key: key) }
        changedBytes.add(UInt64(bitPattern: Int64(write.recordByteCount)))
        changedCount.add(UInt64(records))
        storedSinceMeasured.add(UInt64(records))
        guard passesRunning.load() != 0, case let .batch(batch) = write else { return }
        batch.forEachRecordPut { key, bytes in setAside(records: 1, bytes: bytes, key: key) }
    }

    /// Counts, under the write gate, a committed single-key write that stored `change`'s record.
    @inline(__always)
    func countStored(_ write: EngineWrite, _ change: KeyChange) {
        guard change.kind == .set else { return }
        if case let .put(key, _) = write { return count(records: 1, bytes: write.recordByteCount, key: key) }
        countStored(write, ChangeList(change))
    }

    private func setAside(records: Int, bytes: Int, key: UnsafeRawBufferPointer) {
        passLock.withLock {
            for pass in passes where pass.willRead(key) {
                pass.setAside.bytes += bytes
                pass.setAside.count += records
            }
        }
    }

    /// Begins a pass in chunks over `range` (which must end where its chunks stop reading); the
    /// caller hands it to ``OpenDatabase/removeInChunks(_:from:sync:measuring:visit:finishingChunk:)``
    /// and ends it with ``finish(_:measured:)`` or ``abandon(_:)``.
    func beginPass(over range: KeyRange, in database: OpenDatabase) -> MeasuringPass {
        database.writeGate.withWriteLock {
            let pass = MeasuringPass(
                range: range, countedBefore: counted, ticket: measurementsBegun.add(1) + 1, passLock: passLock)
            passLock.withLock { passes.append(pass) }
            passesRunning.add(1)
            return pass
        }
    }

    /// Ends `pass`, which read the whole range and found `measured` there (less what it removed
    /// itself), and replaces the count with it. A pass that stopped early is abandoned instead.
    func finish(_ pass: MeasuringPass, measured: (bytes: Int, count: Int)) {
        let setAside = passLock.withLock { () -> (bytes: Int, count: Int)? in
            guard pass.resumeKey == nil else { return nil }
            return pass.setAside
        }
        abandon(pass)
        guard let setAside else { return }
        replaceOffset(
            bytes: measured.bytes - pass.countedBefore.bytes - setAside.bytes,
            count: measured.count - pass.countedBefore.count - setAside.count, measuredBy: pass.ticket)
    }

    /// Ends `pass` without measuring anything (it stopped early, or failed); ending it twice is harmless.
    func abandon(_ pass: MeasuringPass) {
        let removed = passLock.withLock { () -> Bool in
            guard let index = passes.firstIndex(where: { $0 === pass }) else { return false }
            passes.remove(at: index)
            return true
        }
        if removed { passesRunning.subtract(1) }
    }

    /// Measures the database's record bytes and records with one pass over its headers, through
    /// an iterator made under the exclusive write gate (its snapshot holds every write counted
    /// before it and none after), and replaces the count with it.
    func measure(_ database: OpenDatabase) throws {
        let (iterator, before, ticket) = try database.writeGate.withWriteLock {
            () throws(ModelStoreError) -> (LevelDBIterator, (bytes: Int, count: Int), UInt64) in
            (try database.run { try $0.makeIterator(snapshot: nil, fillCache: false) }, counted, measurementsBegun.add(1) + 1)
        }
        let measured = try database.run { _ in try Self.measuredRecords(with: iterator) }
        replaceOffset(bytes: measured.bytes - before.bytes, count: measured.count - before.count, measuredBy: ticket)
    }

    /// The database's record bytes (keys plus values) and records, by one pass over them.
    static func measuredRecords(of database: OpenDatabase) throws -> (bytes: Int, count: Int) {
        try database.run { engine in
            try measuredRecords(with: try engine.makeIterator(snapshot: nil, fillCache: false))
        }
    }

    private static func measuredRecords(with iterator: LevelDBIterator) throws -> (bytes: Int, count: Int) {
        var measured = (bytes: 0, count: 0)
        try iterator.seek(to: KeySpace.userRecords.lowerBound)
        while true {
            var pastEnd = false
            let (seen, _) = try iterator.scanForward(limit: 4_096) { key, value in
                if KeySpace.userRecords.isPastEnd(key, reverse: false) {
                    pastEnd = true
                    return false
                }
                measured.bytes += key.count + value.count
                measured.count += 1
                return true
            }
            if pastEnd || seen < 4_096 { break }
        }
        return measured
    }
}
