import Foundation

/// Accumulates models into a LevelDB batch and commits it every `batchSize` models, through the
/// write funnel: the body of every `importObjects`.
///
/// Usable from inlinable code (the import loops) but not inlined itself: its body stays
/// internal to ModelStore. Encoding runs in the caller's isolation; each chunk's LevelDB write
/// is offloaded to a Dispatch queue, so neither the caller's actor nor the cooperative pool
/// blocks on the disk.
@usableFromInline
struct ChunkedImporter {
    /// What ``add(_:forKey:)`` did.
    @usableFromInline
    enum Step { case added, full, cancelled }

    let scope: Scope
    let batchSize: Int
    let total: Int?
    let sync: Bool
    let progress: ((ModelStore.ImportProgress) -> Void)?
    /// The lifetime stamped on each record: a collection's policy's, or nil (the store's).
    let lifetime: Double?
    let clock = ContinuousClock()
    let started: ContinuousClock.Instant
    var batch = LevelDBWriteBatch()
    var changes = ChangeList()
    /// One encoding buffer for every record (see ``Scope/add(_:forKey:in:lifetime:with:tags:to:buffer:)``).
    var recordBuffer: [UInt8] = []
    var written = 0
    var chunks = 0
    var cancelled = false

    @usableFromInline
    init(scope: Scope, batchSize: Int, total: Int?, sync: Bool?, progress: ((ModelStore.ImportProgress) -> Void)?) throws {
        // The collection's name and policy are checked before anything is read from the input.
        _ = try scope.open()
        self.scope = scope
        lifetime = scope.lifetime
        self.batchSize = max(1, batchSize)
        self.total = total
        self.sync = sync ?? scope.configuration.syncWrites
        self.progress = progress
        started = clock.now
        changes.reserveCapacity(chunkCapacity)
    }

    /// The changes a chunk's list makes room for at once: growing it one doubling at a time cost
    /// about 90 instructions per record of a chunk of 1,000 (the changes copied at each doubling).
    private var chunkCapacity: Int { min(batchSize, 1 << 14) }

    /// Adds one model; returns `.full` when the chunk is ready for ``commit()``, and
    /// `.cancelled` when the task was cancelled, after which the caller stops feeding models.
    @usableFromInline
    mutating func add<Value: Encodable>(_ model: Value, forKey key: String) throws -> Step {
        if batch.count == 0, Task.isCancelled {
            cancelled = true
            return .cancelled
        }
        changes.append(
            try scope.add(
                model, forKey: key, in: scope.space, lifetime: lifetime, with: NoMetadata(), tags: [], to: batch,
                buffer: &recordBuffer))
        return batch.count >= batchSize || batch.byteCount >= 64 << 20 ? .full : .added
    }

    /// Writes the chunk on a background queue, then reports progress in the caller's isolation.
    @usableFromInline
    mutating func commit(isolation: isolated (any Actor)? = #isolation) async throws {
        guard batch.count > 0 else { return }
        let chunk = Chunk(database: scope.database, batch: batch, changes: changes, sync: sync)
        try await offload { try chunk.write() }
        written += batch.count
        chunks += 1
        batch.clear()
        changes = ChangeList()
        changes.reserveCapacity(chunkCapacity)
        progress?(ModelStore.ImportProgress(completed: written, total: total))
    }

    /// Commits the last partial chunk (unless cancelled) and reports.
    @usableFromInline
    mutating func finish(isolation: isolated (any Actor)? = #isolation) async throws -> ModelStore.ImportReport {
        if !cancelled && Task.isCancelled { cancelled = true }
        if !cancelled { try await commit() }
        return ModelStore.ImportReport(
            written: written, chunks: chunks, wasCancelled: cancelled, duration: clock.now - started)
    }
}

extension ChunkedImporter {
    /// Imports `models` into `scope`: the loop of every synchronous-sequence `importObjects`.
    ///
    /// Inlinable, so the loop is compiled for the caller's sequence and key: iterating a sequence
    /// and applying a key path in unspecialised code cost up to a microsecond per model, more
    /// than LevelDB's share of an import. Only a random-access collection knows its count
    /// without being read: any other `count` (a lazy filter's, say) walks the sequence, and the
    /// import would read it twice.
    @inlinable
    static func importObjects<Models: Sequence, Key: CustomStringConvertible>(
        _ models: Models, key: (Models.Element) throws -> Key, into scope: Scope, batchSize: Int, sync: Bool?,
        isolation: isolated (any Actor)? = #isolation, progress: ((ModelStore.ImportProgress) -> Void)?
    ) async throws -> ModelStore.ImportReport where Models.Element: Encodable {
        let total = (models as? any RandomAccessCollection)?.count
        var importer = try ChunkedImporter(scope: scope, batchSize: batchSize, total: total, sync: sync, progress: progress)
        for model in models {
            let step = try importer.add(model, forKey: key(model).description)
            if step == .cancelled { break }
            // Between chunks only: an await per model would cost more than LevelDB's share.
            if step == .full { try await importer.commit() }
        }
        return try await importer.finish()
    }

    /// Imports the models of an asynchronous sequence into `scope`.
    @inlinable
    static func importObjects<Models: AsyncSequence, Key: CustomStringConvertible>(
        _ models: Models, key: (Models.Element) throws -> Key, into scope: Scope, batchSize: Int, sync: Bool?,
        isolation: isolated (any Actor)? = #isolation, progress: ((ModelStore.ImportProgress) -> Void)?
    ) async throws -> ModelStore.ImportReport where Models.Element: Encodable {
        var importer = try ChunkedImporter(scope: scope, batchSize: batchSize, total: nil, sync: sync, progress: progress)
        for try await model in models {
            let step = try importer.add(model, forKey: key(model).description)
            if step == .cancelled { break }
            if step == .full { try await importer.commit() }
        }
        return try await importer.finish()
    }
}

/// One chunk on its way to LevelDB.
private struct Chunk: @unchecked Sendable {
    // @unchecked: the batch is handed to the queue and not touched by the importer until the
    // write returns (the importer awaits it), so only one thread uses it at a time.
    let database: OpenDatabase
    let batch: LevelDBWriteBatch
    let changes: ChangeList
    let sync: Bool

    func write() throws {
        try database.commit(.batch(batch), changes, sync: sync)
    }
}
