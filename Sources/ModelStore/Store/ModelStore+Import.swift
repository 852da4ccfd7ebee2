import Foundation

extension ModelStore {
    /// How far an import has come, reported after each chunk.
    public struct ImportProgress: Sendable, Hashable {
        /// Models written so far.
        public let completed: Int
        /// How many models the import will write, when the sequence knows its count.
        public let total: Int?

        /// The fraction done, from 0 to 1, when the total is known.
        public var fractionCompleted: Double? {
            guard let total else { return nil }
            return total == 0 ? 1 : Double(completed) / Double(total)
        }
    }

    /// What an import did.
    public struct ImportReport: Sendable, Hashable {
        /// Models written. After a cancellation, exactly the models of the chunks that were
        /// committed.
        public let written: Int
        /// Atomic chunks committed.
        public let chunks: Int
        /// Whether the import stopped early because its task was cancelled.
        public let wasCancelled: Bool
        /// Wall-clock time the import took.
        public let duration: Duration
    }

    /// Writes many models in atomic chunks, for import jobs.
    ///
    /// ```swift
    /// let report = try await store.importObjects(users, key: \.id, batchSize: 1_000) { progress in
    ///     print("\(progress.completed) of \(progress.total ?? 0)")
    /// }
    /// ```
    ///
    /// The sequence is read once, lazily, one chunk at a time, so memory stays flat however
    /// many models it yields. Each chunk is one atomic LevelDB write: after a crash, a chunk is
    /// either entirely stored or not at all. Cancelling the task stops the import at the next
    /// chunk boundary; the report says how many models were written.
    ///
    /// The import runs in the caller's isolation (the `isolation` parameter), so the sequence,
    /// its models and the `progress` closure need not be `Sendable`: a progress closure may
    /// update a plain `final class` or, from the main actor, main-actor state directly. Models
    /// are encoded there; each chunk's write to LevelDB runs on a background queue, so the
    /// caller's actor is free while the disk works. To keep the encoding off the main actor
    /// too, call this from a nonisolated function or a detached task.
    ///
    /// - Parameters:
    ///   - models: The models to store.
    ///   - key: The key for a model: a key path such as `\.id`, or a closure. Non-string
    ///     keys are stored as their `description`.
    ///   - batchSize: Models per atomic chunk (at least 1).
    ///   - sync: Whether each chunk waits for stable storage; nil uses ``Configuration/syncWrites``.
    ///   - isolation: The actor the import runs on; the caller's, by default.
    ///   - progress: Called after each committed chunk, in the caller's isolation. Its
    ///     ``ImportProgress/total`` is the collection's count for a random-access collection
    ///     (an array, a range, a lazy map of one) and nil otherwise, because counting any
    ///     other sequence would read it twice.
    /// - Throws: ``ModelStoreError/encodingFailed(key:type:message:)`` or
    ///   ``ModelStoreError/invalidKey(key:reason:)`` (the failing chunk is not written;
    ///   earlier chunks stay), or a write error.
    @discardableResult
    @inlinable
    public func importObjects<Models: Sequence, Key: CustomStringConvertible>(
        _ models: Models,
        key: (Models.Element) throws -> Key,
        batchSize: Int = 1_000,
        sync: Bool? = nil,
        isolation: isolated (any Actor)? = #isolation,
        progress: ((ImportProgress) -> Void)? = nil
    ) async throws -> ImportReport where Models.Element: Encodable {
        // Inlinable, so the loop is compiled for the caller's sequence and key: iterating a
        // sequence and applying a key path in unspecialised code cost up to a microsecond per
        // model, more than LevelDB's share of an import. The importer itself is not inlined.
        // Only a random-access collection knows its count without being read: any other
        // `count` (a lazy filter's, say) walks the sequence, and the import would read it twice.
        let total = (models as? any RandomAccessCollection)?.count
        var importer = try ChunkedImporter(store: self, batchSize: batchSize, total: total, sync: sync, progress: progress)
        for model in models {
            let step = try importer.add(model, forKey: key(model).description)
            if step == .cancelled { break }
            // Between chunks only: an await per model would cost more than LevelDB's share.
            if step == .full { try await importer.commit() }
        }
        return try await importer.finish()
    }

    /// Writes the models of an asynchronous sequence in atomic chunks, for import jobs that
    /// stream their input (a file, a network response).
    ///
    /// ```swift
    /// let report = try await store.importObjects(lines.compactMap(decodeUser), key: \.id)
    /// ```
    ///
    /// - Parameters: As the `Sequence` variant; `total` in progress reports is nil.
    /// - Throws: Errors of the sequence, or as the `Sequence` variant.
    @discardableResult
    @inlinable
    public func importObjects<Models: AsyncSequence, Key: CustomStringConvertible>(
        _ models: Models,
        key: (Models.Element) throws -> Key,
        batchSize: Int = 1_000,
        sync: Bool? = nil,
        isolation: isolated (any Actor)? = #isolation,
        progress: ((ImportProgress) -> Void)? = nil
    ) async throws -> ImportReport where Models.Element: Encodable {
        var importer = try ChunkedImporter(store: self, batchSize: batchSize, total: nil, sync: sync, progress: progress)
        for try await model in models {
            let step = try importer.add(model, forKey: key(model).description)
            if step == .cancelled { break }
            if step == .full { try await importer.commit() }
        }
        return try await importer.finish()
    }
}

/// Accumulates models into a LevelDB batch and commits it every `batchSize` models.
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

    let store: ModelStore
    let database: OpenDatabase
    let batchSize: Int
    let total: Int?
    let sync: Bool
    let progress: ((ModelStore.ImportProgress) -> Void)?
    /// The lifetime stamped on each record: a collection's policy's, or nil (the store's).
    let lifetime: Double?
    let clock = ContinuousClock()
    let started: ContinuousClock.Instant
    var batch = LevelDBWriteBatch()
    var keys: [String] = []
    /// Where the records go: the default collection or a named one.
    let space: KeySpace
    /// One encoding buffer for every record (see `addRecord(_:forKey:lifetime:metadata:to:buffer:space:)`).
    var recordBuffer: [UInt8] = []
    var written = 0
    var chunks = 0
    var cancelled = false

    /// `collection`: where the records go, with its lifetime (nil: the store's own keys).
    @usableFromInline
    init(
        store: ModelStore, batchSize: Int, total: Int?, sync: Bool?,
        progress: ((ModelStore.ImportProgress) -> Void)?, collection: ModelStore.Collection? = nil
    ) throws {
        // The collection's name and policy are checked before anything is read from the input.
        let target = try collection?.checked
        lifetime = target?.lifetime
        space = target?.space ?? .default
        database = try store.openDatabase()
        self.store = store
        self.batchSize = max(1, batchSize)
        self.total = total
        self.sync = sync ?? store.configuration.syncWrites
        self.progress = progress
        started = clock.now
        keys.reserveCapacity(self.batchSize)
    }

    /// Adds one model; returns `.full` when the chunk is ready for ``commit()``, and
    /// `.cancelled` when the task was cancelled, after which the caller stops feeding models.
    @usableFromInline
    mutating func add<Value: Encodable>(_ model: Value, forKey key: String) throws -> Step {
        if batch.count == 0, Task.isCancelled {
            cancelled = true
            return .cancelled
        }
        try store.addRecord(
            model, forKey: key, lifetime: lifetime, with: NoMetadata(), to: batch, buffer: &recordBuffer,
            space: space)
        keys.append(key)
        return batch.count >= batchSize || batch.byteCount >= 64 << 20 ? .full : .added
    }

    /// Writes the chunk on a background queue, then reports progress in the caller's isolation.
    @usableFromInline
    mutating func commit(isolation: isolated (any Actor)? = #isolation) async throws {
        guard batch.count > 0 else { return }
        let chunk = Chunk(store: store, database: database, batch: batch, keys: keys, space: space, sync: sync)
        try await offload { try chunk.write() }
        written += batch.count
        chunks += 1
        batch.clear()
        keys.removeAll(keepingCapacity: true)
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

/// One chunk on its way to LevelDB.
private struct Chunk: @unchecked Sendable {
    // @unchecked: the batch is handed to the queue and not touched by the importer until the
    // write returns (the importer awaits it), so only one thread uses it at a time.
    let store: ModelStore
    let database: OpenDatabase
    let batch: LevelDBWriteBatch
    let keys: [String]
    let space: KeySpace
    let sync: Bool

    func write() throws {
        let spaces = space.isDefault ? nil : Array(repeating: space, count: keys.count)
        try store.apply(batch, keys: keys, kinds: nil, spaces: spaces, in: database, sync: sync)
    }
}
