import Foundation

extension ModelWriter {
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
    ///   - sync: Whether each chunk waits for stable storage; nil uses ``ModelStore/Configuration/syncWrites``.
    ///   - isolation: The actor the import runs on; the caller's, by default.
    ///   - progress: Called after each committed chunk, in the caller's isolation. Its
    ///     ``ModelStore/ImportProgress/total`` is the collection's count for a random-access collection
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
        progress: ((ModelStore.ImportProgress) -> Void)? = nil
    ) async throws -> ModelStore.ImportReport where Models.Element: Encodable {
        try await ChunkedImporter.importObjects(
            models, key: key, into: _scope, batchSize: batchSize, sync: sync, progress: progress)
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
        progress: ((ModelStore.ImportProgress) -> Void)? = nil
    ) async throws -> ModelStore.ImportReport where Models.Element: Encodable {
        try await ChunkedImporter.importObjects(
            models, key: key, into: _scope, batchSize: batchSize, sync: sync, progress: progress)
    }
}
