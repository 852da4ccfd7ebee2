extension ModelStore.Collection {
    /// Stores many models in this collection in atomic chunks, as
    /// `ModelStore.importObjects(_:key:batchSize:sync:isolation:progress:)`
    /// does for the store's own keys; records get the collection's policy.
    ///
    /// ```swift
    /// try await store.collection("users").importObjects(users, key: \.id)
    /// ```
    ///
    /// - Throws: ``ModelStoreError/invalidName(name:reason:)`` or
    ///   ``ModelStoreError/invalidPolicy(reason:)`` before reading the input; otherwise as the
    ///   store's import.
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
        let total = (models as? any RandomAccessCollection)?.count
        var importer = try ChunkedImporter(
            store: store, batchSize: batchSize, total: total, sync: sync, progress: progress, collection: self)
        for model in models {
            let step = try importer.add(model, forKey: key(model).description)
            if step == .cancelled { break }
            if step == .full { try await importer.commit() }
        }
        return try await importer.finish()
    }

    /// Stores the models of an asynchronous sequence in this collection in atomic chunks.
    ///
    /// - Throws: As the synchronous-sequence `importObjects(_:key:batchSize:sync:isolation:progress:)`.
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
        var importer = try ChunkedImporter(
            store: store, batchSize: batchSize, total: nil, sync: sync, progress: progress, collection: self)
        for try await model in models {
            let step = try importer.add(model, forKey: key(model).description)
            if step == .cancelled { break }
            if step == .full { try await importer.commit() }
        }
        return try await importer.finish()
    }
}
