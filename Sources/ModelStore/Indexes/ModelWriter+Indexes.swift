// MARK: - Secondary indexes: the faces
//
// Declared once for the store's own keys and every collection; each call forwards to the scope
// (Scope+Indexes.swift, Scope+IndexQueries.swift).

extension ModelWriter {
    /// Defines the secondary index `name` in this process: `indexer` computes its values from
    /// each model of type `Model` written here, and the write funnel keeps its entries in the same
    /// atomic LevelDB write as the record, for every write (sets, batches, imports, removals,
    /// sweeps, limits, tag removals, `refresh`, `replaceMetadata`).
    ///
    /// ```swift
    /// let posts = store.collection("posts")
    /// try posts.defineIndex("byAuthor", of: Post.self, version: 1) { post in [.string(post.author)] }
    /// try posts.defineIndex("byTag", of: Post.self, version: 1) { post in post.tags.map { .string($0) } }
    /// ```
    ///
    /// Indexers are code, so call this each time the store opens, before writing to the
    /// collection. The database records each index's version: when it holds no built index of
    /// this name and version (a new index, a new `version`, or a build that was interrupted),
    /// this call builds it from the stored records, in chunks of 512 records, each written
    /// atomically with the build's position, reporting `progress` after each. A build killed at
    /// any point goes on from its last chunk at the next call; a build whose task is cancelled
    /// stops after the current chunk (see ``ModelStore/IndexBuildReport/wasCancelled``). Until the build
    /// finishes, queries on the index throw ``ModelStoreError/indexNotBuilt(index:collection:)``.
    ///
    /// Records that do not decode as `Model` (another model type in the same collection) are
    /// skipped and counted in the report; they have no entries. An indexer may return no value
    /// (the record is then not in the index) or several (each is an entry); repeats are stored once.
    ///
    /// Index values are part of LevelDB keys, which order them: with
    /// ``ModelStore/Configuration/encryption`` on, records are sealed but the values an indexer
    /// returns are stored in plaintext, as keys and tags are. Do not index secrets.
    ///
    /// - Parameters:
    ///   - name: 1 to 255 UTF-8 bytes, compared by their bytes.
    ///   - type: The model type the indexer reads.
    ///   - version: Change it whenever the indexer computes different values: the index is then
    ///     rebuilt, and the old version's entries are removed.
    ///   - progress: Called after each chunk of a build.
    ///   - indexer: The values of a model. Keep it fast and free of side effects: it runs for
    ///     every write of the model, under the database's exclusive write gate when it decodes.
    /// - Returns: What the build did.
    /// - Throws: ``ModelStoreError/invalidName(name:reason:)`` for a bad name;
    ///   ``ModelStoreError/indexerFailed(index:key:message:)`` if the indexer throws during the build
    ///   (the chunks already written stay; the next call goes on from there); write errors as
    ///   ``ModelWriter/set(_:forKey:expiresAfter:metadata:tags:)-7tnvs``.
    /// - Complexity: O(1) reads when the index is built; O(n) in the records of the key space
    ///   when it builds.
    @discardableResult
    public func defineIndex<Model: Decodable>(
        _ name: String, of type: Model.Type, version: Int,
        progress: ((ModelStore.IndexBuildProgress) -> Void)? = nil,
        _ indexer: @escaping @Sendable (Model) throws -> [IndexValue]
    ) throws -> ModelStore.IndexBuildReport {
        try _scope.defineIndex(name, of: type, version: version, progress: progress, indexer: indexer)
    }

    /// Removes the index `name`: from this process, from the database's definitions, and its
    /// entries (in chunks of 4,096, each atomic; a drop killed part way is finished by the next
    /// `dropIndex` or `defineIndex` of the name). Removing an index that does not exist succeeds.
    ///
    /// - Throws: ``ModelStoreError/invalidName(name:reason:)``; write errors as
    ///   ``ModelWriter/set(_:forKey:expiresAfter:metadata:tags:)-7tnvs``.
    public func dropIndex(_ name: String) throws {
        try _scope.dropIndex(name)
    }

    /// The live records whose index `index` holds `value`, in key order, decoded as `Value`.
    ///
    /// ```swift
    /// let mine = try posts.entries(Post.self, where: "byAuthor", equals: .string("ada")).collect()
    /// ```
    ///
    /// The cursor reads a snapshot taken when it is made; expired records are skipped. The
    /// query reads this process's local store only, also when a shared tier is configured.
    ///
    /// - Throws: ``ModelStoreError/indexNotDefined(index:collection:)`` unless this process
    ///   defined the index; ``ModelStoreError/indexNotBuilt(index:collection:)`` until its build
    ///   finished; ``Cursor/next()`` throws as for ``ModelReader/entries(_:in:reverse:limit:)``.
    public func entries<Value: Decodable>(
        _ type: Value.Type, where index: String, equals value: IndexValue
    ) throws -> Cursor<ModelStore.Entry<Value>> {
        try _scope.indexEntries(type, index, range: Self.equal(value), reverse: false, limit: nil)
    }

    /// The live records whose index `index` holds a value in `range`, in index order (then key
    /// order), or the reverse; at most `limit` of them.
    ///
    /// ```swift
    /// let recent = try posts.entries(Post.self, where: "byTime",
    ///                                in: .date(since) ..< .date(.distantFuture), reverse: true, limit: 20)
    /// ```
    ///
    /// A record with several values in the range is returned once per value.
    ///
    /// - Throws: As ``entries(_:where:equals:)``.
    public func entries<Value: Decodable>(
        _ type: Value.Type, where index: String, in range: Range<IndexValue>, reverse: Bool = false, limit: Int? = nil
    ) throws -> Cursor<ModelStore.Entry<Value>> {
        try _scope.indexEntries(
            type, index, range: { IndexKeys.entryRange($0, from: range.lowerBound, to: range.upperBound, includingUpper: false) },
            reverse: reverse, limit: limit)
    }

    /// `entries(_:where:in:reverse:limit:)` over a half-open range, with both ends included here.
    ///
    /// - Throws: As ``entries(_:where:equals:)``.
    public func entries<Value: Decodable>(
        _ type: Value.Type, where index: String, in range: ClosedRange<IndexValue>, reverse: Bool = false,
        limit: Int? = nil
    ) throws -> Cursor<ModelStore.Entry<Value>> {
        try _scope.indexEntries(
            type, index, range: { IndexKeys.entryRange($0, from: range.lowerBound, to: range.upperBound, includingUpper: true) },
            reverse: reverse, limit: limit)
    }

    /// The keys of the live records whose index `index` holds `value`, in key order, without
    /// decoding them.
    ///
    /// ```swift
    /// let keys = try posts.keys(where: "byTag", equals: .string("swift")).collect()
    /// ```
    ///
    /// - Throws: As ``entries(_:where:equals:)``.
    public func keys(where index: String, equals value: IndexValue) throws -> Cursor<String> {
        try _scope.indexKeys(index, range: Self.equal(value), reverse: false, limit: nil)
    }

    /// How many live records the index `index` holds `value` for, judged from their envelopes.
    ///
    /// - Throws: As ``entries(_:where:equals:)``.
    /// - Complexity: O(n) in the records counted.
    public func count(where index: String, equals value: IndexValue) throws -> Int {
        try _scope.indexCount(index, range: Self.equal(value))
    }

    private static func equal(_ value: IndexValue) -> (UInt32) -> KeyRange {
        { IndexKeys.entryRange($0, from: value, to: value, includingUpper: true) }
    }
}
