import CoreMetrics

extension Scope {
    /// The hit step of a read-through for a model the object cache holds, live: validates,
    /// counts the hit and sets `probe` (``ReadThroughProbe/Step/hit``, or
    /// ``ReadThroughProbe/Step/hitDueForRefresh``). Returns false, counting nothing, when the
    /// cache cannot answer (no cache, key not cached, expired, or `take` refuses the cached
    /// value): the caller then runs the full hit step, ``readThroughHit(_:forKey:options:requiresValue:probe:)``.
    ///
    /// Not generic, so that the inlinable read-through shell calls it with the one generic step,
    /// taking the cached model as the model's type (``CachedModel``), in `take`: the caller's module
    /// specialises that closure (the generic hit step, unspecialised, costs a cached hit much
    /// more: PERFORMANCE.md, "Read-through hits").
    /// Throws what the full hit step throws, in the same order (the scope is usable, then the
    /// key, then the options).
    ///
    /// - Parameter take: Keeps the cached model as the model's type; false if it is not one.
    @usableFromInline
    func readThroughCachedHit(
        forKey key: String, options: ReadThroughOptions, probe: inout ReadThroughProbe, take: (CachedModel) -> Bool
    ) throws -> Bool {
        let database = try open()
        // Without a cache, straight to the full hit step, which validates: a read that reaches
        // LevelDB does not pay for the validation and the clock twice.
        guard database.cache != nil else { return false }
        try ModelStore.validate(key: key)
        try options.validate()
        // The clock is read only for a record with a deadline, as object(_:forKey:) does (see
        // RecordReader.isExpired): without one the record neither expires nor is due for a
        // refresh, so `now` is never looked at.
        var now = 0.0
        // Through the database's reference, not a local copy (see object(_:forKey:)). An
        // expired item is left for the full hit step, which finds it again and misses.
        guard let item = database.cache?.lookup(key, in: space),
            !reader.isExpired(item.header, readingClockInto: &now),
            take(item.value)
        else { return false }
        database.didUse(hash: item.useHash)
        metrics.hits.increment()
        probe.now = now
        if let ratio = options.refreshAhead, isDueForRefresh(item.header, ratio: ratio, now: now) {
            probe.step = .hitDueForRefresh
        } else {
            probe.step = .hit
        }
        return true
    }
}

extension ModelStore {
    /// Whether the object cache may hold models of `type` (see ``ObjectCache/isCacheable(_:)``).
    /// Inlinable: in a specialised caller it folds to a constant.
    @inlinable
    static func isObjectCacheable<Value>(_ type: Value.Type) -> Bool {
        !(type is AnyObject.Type)
    }
}
