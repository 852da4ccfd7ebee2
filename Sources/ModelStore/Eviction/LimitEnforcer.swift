import Foundation
import Logging

/// How one open database keeps within ``ModelStore/Configuration/maximumTotalBytes`` and
/// ``ModelStore/Configuration/maximumRecordCount`` while writes arrive: it counts what writes
/// add, and when a write takes the database over a limit, evicts down to just under it, in the
/// background or, beyond the margin, in the writer's own thread (EvictionWalk.swift).
///
/// Created when the database is first opened in the process with a limit; nil otherwise, so a
/// database without limits pays one nil check per read and per write. What it counts is
/// ModelStore's count of record bytes (each record's key plus its stored value, as sweeps count
/// them), not LevelDB's files: measured once at open by a pass over the records' headers, then
/// kept by adding every write and subtracting every eviction. Overwrites and removals are
/// counted as if they freed nothing (a write does not read what it replaces), so between sweeps
/// the count can only be too high: every full sweep (``ModelStore/removeExpiredObjects()``, the
/// automatic sweeps) measures it again.
final class LimitEnforcer: @unchecked Sendable {
    // @unchecked: the counts are atomic words; the hand, the reader and the walk are behind locks.

    /// The limits this enforcer keeps, fixed at the first open.
    struct Limits: Equatable, Sendable {
        var maximumBytes: Int?
        var maximumCount: Int?
        var eviction: ModelStore.Eviction

        var isEmpty: Bool { maximumBytes == nil && maximumCount == nil }
    }

    /// How writers wait for eviction: beyond the margin (the default), or always (tests, the
    /// hit-ratio benchmark: the database is then never over a limit when a write returns).
    enum Enforcement: Sendable {
        /// A background queue evicts once a write takes the database over a limit; a writer
        /// that finds it over the limit plus ``LimitEnforcer/margin(of:)`` evicts in its own thread.
        case background
        /// Every write that takes the database over a limit evicts in its own thread before it returns.
        case inline
    }

    let limits: Limits
    let enforcement: Enforcement
    /// Recent uses per key, for ``ModelStore/Eviction/leastRecentlyUsed``; nil for `oldestWritten`.
    let sketch: UseSketch?

    /// The count is `offset` plus every change counted since the open (`changed`), as Int64 bit
    /// patterns; a measurement replaces the offset only (MeasuringPass.swift).
    private let offsetBytes = AtomicWord()
    private let offsetCount = AtomicWord()
    /// Measurements begun since the open, each numbered under the exclusive write gate.
    let measurementsBegun = AtomicWord()
    /// Guards the offset's two words and ``measuredBy`` as a measurement replaces them.
    private let offsetLock = Lock()
    /// Guarded by ``offsetLock``: the number of the measurement the offset comes from.
    private var measuredBy: UInt64 = 0
    let changedBytes = AtomicWord()
    let changedCount = AtomicWord()
    /// Records stored since the count was last measured: overwrites among them made it too high.
    let storedSinceMeasured = AtomicWord()
    /// Guards the passes under way and their cursors.
    let passLock = Lock()
    /// Guarded by ``passLock``: the passes in chunks under way.
    var passes: [MeasuringPass] = []
    /// How many passes in chunks are under way: writes look at the passes only when there are some.
    let passesRunning = AtomicWord()
    /// 1 while a background eviction is scheduled or running.
    private let scheduled = AtomicWord()
    /// One walk at a time; the hand (where the next walk starts) is guarded by it too.
    let walking = Lock()
    /// Guarded by ``walking``: the LevelDB key the next walk starts at.
    var hand: [UInt8] = []
    /// Guarded by ``walking``: windows walked since the open (for the crash tests' kill points).
    var windowsWalked = 0
    /// How the walk judges a record's seal (an encrypting store's): the first store's reader.
    let reader = Locked<RecordReader?>(nil)
    private let queue: DispatchQueue
    let metrics: EvictionMetrics
    /// Guarded by ``walking``: records evicted since the last compaction was scheduled, and the
    /// range they came from.
    var uncompacted = (count: 0, first: [UInt8](), last: [UInt8]())

    init(limits: Limits, enforcement: Enforcement, database: String, metrics: EvictionMetrics) {
        self.limits = limits
        self.enforcement = enforcement
        self.metrics = metrics
        if limits.eviction == .leastRecentlyUsed {
            // About as many counters per row as records fit: the count limit, else the byte
            // limit over a 256-byte record (clamped by the sketch to 4 KiB...8 MiB in all).
            let capacity = limits.maximumCount ?? ((limits.maximumBytes ?? 0) / 256)
            sketch = UseSketch(capacity: capacity)
        } else {
            sketch = nil
        }
        queue = DispatchQueue(label: "ModelStore.eviction.\(database)", qos: .utility)
    }

    // MARK: - Counting

    /// Record bytes and records, as counted.
    var tracked: (bytes: Int, count: Int) {
        let changed = counted
        return (Int(Int64(bitPattern: offsetBytes.load())) + changed.bytes,
                Int(Int64(bitPattern: offsetCount.load())) + changed.count)
    }

    /// Counts, under the write gate, a record of `byteCount` bytes under `key` removed by eviction.
    func didEvict(key: [UInt8], byteCount: Int) {
        key.withUnsafeBytes { count(records: -1, bytes: -byteCount, key: $0) }
    }

    /// Replaces the count's offset after the measurement numbered `ticket`, unless one begun
    /// after it replaced it already (MeasuringPass.swift).
    func replaceOffset(bytes: Int, count: Int, measuredBy ticket: UInt64) {
        offsetLock.withLock {
            guard ticket > measuredBy else { return }
            measuredBy = ticket
            offsetBytes.store(UInt64(bitPattern: Int64(bytes)))
            offsetCount.store(UInt64(bitPattern: Int64(count)))
            storedSinceMeasured.store(0)
        }
    }

    /// Whether so many records were stored since the count was measured that overwrites may
    /// have made it too high by an eighth: then eviction measures again before it evicts, so a
    /// program that overwrites its records loses at most an eighth of them to bytes it did not
    /// add. At most one pass over the headers per eighth of the database (64 records at least)
    /// written.
    var needsMeasuring: Bool {
        Int(storedSinceMeasured.load()) >= max(64, tracked.count / 8)
    }

    // MARK: - Limits

    /// How far over a limit the database may go before writers evict in their own threads: a
    /// sixteenth of the limit (at least one record's worth for a count; 64 KiB for bytes).
    static func margin(of limit: Int, bytes: Bool) -> Int {
        max(limit / 16, bytes ? 64 << 10 : 1)
    }

    /// How far under a limit eviction goes once it runs, so that it runs in batches: a 128th
    /// of the limit (nothing for a sweep, which evicts to the limit exactly).
    static func slack(of limit: Int) -> Int {
        limit / 128
    }

    /// Whether the count is over a limit (plus its margin, with `withMargin`).
    func isOver(withMargin: Bool) -> Bool {
        let now = tracked
        if let limit = limits.maximumBytes,
            now.bytes > limit + (withMargin ? Self.margin(of: limit, bytes: true) : 0)
        {
            return true
        }
        if let limit = limits.maximumCount, now.count > limit + (withMargin ? Self.margin(of: limit, bytes: false) : 0)
        {
            return true
        }
        return false
    }

    /// After a write that stored records: evicts if it took the database over a limit. Called
    /// by the write funnel once the write gate is let go.
    @inline(__always)
    func enforceAfterWrite(in database: OpenDatabase) {
        guard isOver(withMargin: false) else { return }
        enforce(in: database)
    }

    private func enforce(in database: OpenDatabase) {
        if enforcement == .inline || isOver(withMargin: true) {
            // Beyond the margin the writer evicts (or waits for the walk under way): backpressure.
            evictToLimits(in: database)
            return
        }
        guard scheduled.compareExchange(expected: 0, desired: 1) else { return }
        queue.async { [self] in
            // A write that went over while this eviction finished found it scheduled and left it
            // to this one: look again, in this same turn of the queue (queued anew, it would come
            // after whatever was queued meanwhile, such as a wait for the work queued so far).
            repeat {
                evictToLimits(in: database)
                scheduled.store(0)
            } while database.engine.isOpen && isOver(withMargin: false)
                && scheduled.compareExchange(expected: 0, desired: 1)
        }
    }

    /// Evicts down to just under the limits, if the database is still over them once this walk's
    /// turn comes; failures are logged (the write that triggered it succeeded).
    func evictToLimits(in database: OpenDatabase) {
        do {
            try walking.withLock {
                guard isOver(withMargin: false) else { return }
                if needsMeasuring {
                    try measure(database)
                    guard isOver(withMargin: false) else { return }
                }
                _ = try walk(
                    in: database,
                    targetBytes: limits.maximumBytes.map { $0 - Self.slack(of: $0) },
                    targetCount: limits.maximumCount.map { $0 - Self.slack(of: $0) },
                    eviction: limits.eviction)
            }
        } catch ModelStoreError.closed {
            return
        } catch {
            database.logger.warning(
                "Eviction to the limits failed", metadata: ["database": "\(database.path)", "error": "\(error)"])
        }
    }

    /// Starts the open's measurement: in the background; with ``Enforcement/inline``, now. It
    /// evicts nothing itself: the next write or sweep does, if the database is over a limit.
    func startMeasuring(_ database: OpenDatabase) {
        let work: @Sendable () -> Void = { [self] in
            do {
                try measure(database)
            } catch ModelStoreError.closed {
                return
            } catch {
                database.logger.warning(
                    "Measuring the database for its limits failed",
                    metadata: ["database": "\(database.path)", "error": "\(error)"])
            }
        }
        if enforcement == .inline { return work() }
        queue.async(execute: work)
    }

    /// Waits for background work queued so far (tests).
    func waitForBackgroundWork() {
        queue.sync {}
    }
}

// MARK: - Uses

extension OpenDatabase {
    /// Counts a use of the record whose key's ``KeyHash`` is `hash` (an object-cache hit, which
    /// keeps the hash with the model), for eviction: in memory, never written.
    @inline(__always)
    func didUse(hash: UInt64) {
        useCounts?.recordUseFromCache(hash)
    }

    /// Counts a use of the record whose LevelDB key is `physicalKey`.
    @inline(__always)
    func didUse(physicalKey: UnsafeRawBufferPointer) {
        useCounts?.recordUse(KeyHash.physical(physicalKey))
    }
}

extension ModelStore.Configuration {
    /// The limits and eviction policy this configuration asks for.
    var limits: LimitEnforcer.Limits {
        LimitEnforcer.Limits(maximumBytes: maximumTotalBytes, maximumCount: maximumRecordCount, eviction: eviction)
    }
}

extension LimitEnforcer {
    /// Called by every store that opens the database: the first one's reader judges seals in
    /// eviction's walks, and its arrival starts the measurement of the database.
    func storeOpened(reader: RecordReader, database: OpenDatabase) {
        let first = self.reader.withLock { current -> Bool in
            guard current == nil else { return false }
            current = reader
            return true
        }
        if first { startMeasuring(database) }
    }
}

// MARK: - The write funnel's step

extension LimitEnforcer {
    /// After a committed single-key write (the funnel's fast path), counted under the write gate
    /// by ``countStored(_:_:)``: counts its record's use, then evicts if the write took the
    /// database over a limit. Called after the write gate is let go.
    @inline(__always)
    func didCommit(_ write: EngineWrite, _ change: KeyChange, in database: OpenDatabase) {
        guard change.kind == .set else { return }
        // Through the database's handle on the counters, as reads count (no retain of the sketch).
        if case let .put(key, _) = write {
            database.useCounts?.recordUse(KeyHash.physical(key))
        } else {
            database.useCounts?.recordUse(KeyHash.key(change.key, in: change.space))
        }
        enforceAfterWrite(in: database)
    }

    /// After a committed write that made `changes`, counted under the write gate by
    /// ``countStored(_:_:)``: counts the records it stored as uses, then evicts if it
    /// took the database over a limit. Writes that store nothing (removals, evictions) count
    /// nothing: what they free is measured by the next sweep.
    func didCommit(_ changes: ChangeList, in database: OpenDatabase) {
        var records = 0
        changes.forEach { change in
            guard change.kind == .set else { return }
            records += 1
            database.useCounts?.recordUse(KeyHash.key(change.key, in: change.space))
        }
        guard records > 0 else { return }
        enforceAfterWrite(in: database)
    }
}
