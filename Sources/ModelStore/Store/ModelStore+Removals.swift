import Foundation

extension ModelStore {
    /// Removes every record written with `tag` (whose current version still carries it), in
    /// every collection, and returns how many live records it removed; expired ones are removed
    /// too, not counted.
    ///
    /// ```swift
    /// try store.set(user, forKey: "user:42", tags: ["team:7"])
    /// let removed = try store.removeObjects(taggedWith: "team:7")   // 1
    /// ```
    ///
    /// After it returns, no read, cursor, count or snapshot taken afterwards sees a record that
    /// carried the tag; records written later with the tag are unaffected. Records written with
    /// the tag while the call runs may or may not be removed. ``changes(bufferingPolicy:)``
    /// reports `.removed` for live records and `.expired` for expired ones. It walks the tag's
    /// index entries in atomic chunks, each read and removed under the exclusive write gate (so
    /// a record a concurrent writer replaces between the read and the removal is never deleted
    /// by mistake). Entries left by records since overwritten or removed are dropped on the way.
    ///
    /// - Complexity: O(*n*) in the tag's index entries; memory stays bounded.
    /// - Throws: ``ModelStoreError/invalidTag(tag:reason:)``; read and write errors as
    ///   ``removeObjects(forKeys:)``.
    @discardableResult
    public func removeObjects(taggedWith tag: String) throws -> Int {
        try scope.removeObjects(taggedWith: tag)
    }

    /// Removes every expired record, then, if ``Configuration/maximumRecordCount`` or
    /// ``Configuration/maximumTotalBytes`` is set, evicts down to those limits exactly, in the
    /// order ``Configuration/eviction`` says (<doc:EvictionByUse>). Returns how many records it
    /// removed.
    ///
    /// It sweeps the whole database: the default collection and every named collection
    /// (``collection(_:)``). Each record is judged by its own deadline (a lifetime given when
    /// it was written, or stamped by a collection opened with a policy), else by this store's
    /// policy. The limits are database-wide: they count the records of every collection
    /// together, and eviction ranks records whichever collection they are in.
    ///
    /// ```swift
    /// let removed = try store.removeExpiredObjects()
    /// ```
    ///
    /// A sweep reads only record headers; it never decodes a model. It works in chunks, each
    /// holding off other writers only briefly and re-checking records under that hold, so it
    /// never removes a record that was just rewritten. After removing 1,000 records or more it
    /// starts a compaction of the affected key range on a background queue, because LevelDB
    /// keeps deleted data on disk until a compaction rewrites it; the sweep returns without
    /// waiting for it. Call ``compact(in:)`` to compact and wait.
    ///
    /// - Complexity: O(*n*) in the records in the database (one pass over their headers), plus
    ///   about 16 headers per record evicted.
    /// - Throws: A write error as ``ModelWriter/set(_:forKey:expiresAfter:metadata:tags:)-7tnvs``;
    ///   ``ModelStoreError/closed(path:)``.
    @discardableResult
    public func removeExpiredObjects() throws -> Int {
        try scope.removeExpiredObjects(range: KeySpace.userRecords, enforcingLimits: true)
    }
}
