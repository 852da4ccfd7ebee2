extension ModelStore {
    /// The limits a database keeps, how close it is to them, and what they removed: what
    /// ``ModelStore/limitStatus()`` returns and `modelstore stats` prints.
    public struct LimitStatus: Sendable, Equatable {
        /// The byte limit: this store's ``Configuration/maximumTotalBytes``, or for the
        /// `modelstore` tool the one recorded in the database. Nil: none.
        public var maximumTotalBytes: Int?
        /// The count limit, as ``maximumTotalBytes``.
        public var maximumRecordCount: Int?
        /// The eviction policy, as ``maximumTotalBytes``.
        public var eviction: Eviction
        /// Record bytes (keys plus stored values) the database holds, as the limits count them.
        public var recordBytes: Int
        /// Records the database holds, as the limits count them.
        public var recordCount: Int
        /// Records evicted in this process since the database opened while it was over its byte
        /// limit, and over its count limit (`modelstore_evictions_total` by reason).
        public var evictedOverBytes: Int
        /// See ``evictedOverBytes``.
        public var evictedOverCount: Int
        /// Records sweeps and eviction removed in this process because they expired.
        public var removedExpired: Int
    }

    /// The limits this store keeps, the record bytes and records the database holds as they count
    /// them, and the evictions since the database was opened in this process.
    ///
    /// With a limit in effect (the database was first opened in the process with one) the counts
    /// are the ones eviction keeps, read in O(1); otherwise they are measured by one pass over
    /// the records' headers.
    ///
    /// ```swift
    /// let status = try store.limitStatus()
    /// print(status.recordBytes, "of", status.maximumTotalBytes ?? 0)
    /// ```
    public func limitStatus() throws -> LimitStatus {
        let database = try scope.open()
        let counted: (bytes: Int, count: Int)
        if let enforcer = database.limits {
            counted = enforcer.tracked
        } else {
            counted = try LimitEnforcer.measuredRecords(of: database)
        }
        let totals = database.evictionMetrics.totals
        return LimitStatus(
            maximumTotalBytes: configuration.maximumTotalBytes, maximumRecordCount: configuration.maximumRecordCount,
            eviction: configuration.eviction, recordBytes: counted.bytes, recordCount: counted.count,
            evictedOverBytes: totals.byBytes, evictedOverCount: totals.byCount, removedExpired: totals.expired)
    }

    /// The limits and eviction policy recorded in the database by the last store opened with a
    /// limit (system record `FF 17`), or nil: for the `modelstore` tool, which has no program's
    /// configuration.
    @_spi(Inspection)
    public func recordedLimits() throws -> (maximumTotalBytes: Int?, maximumRecordCount: Int?, eviction: Eviction)? {
        let database = try scope.open()
        guard let limits = try database.run({ try RecordedLimits.read(from: $0) }) else { return nil }
        return (limits.maximumBytes, limits.maximumCount, limits.eviction)
    }
}
