// MARK: - Limits in a sweep
//
// A sweep's expiry pass reads every header anyway, so it measures the database's record bytes and
// records on the way (no array of records: a sweep's memory does not grow with the database);
// the measurement replaces what the database's enforcer counted, and eviction's walk then evicts
// down to the store's limits exactly, from where the last walk stopped.

extension Scope {
    /// The enforcer a sweep with `limits` evicts through: the database's own (which has its use
    /// counts), else, for a store whose limits the database was not first opened with, one for
    /// this sweep, which ranks records by when they were written.
    func sweepEnforcer(_ database: OpenDatabase, limits: LimitEnforcer.Limits) -> LimitEnforcer {
        if let enforcer = database.limits { return enforcer }
        let enforcer = LimitEnforcer(
            limits: LimitEnforcer.Limits(
                maximumBytes: limits.maximumBytes, maximumCount: limits.maximumCount, eviction: .oldestWritten),
            enforcement: .inline, database: database.name, metrics: database.evictionMetrics)
        enforcer.reader.withLock { $0 = reader }
        return enforcer
    }
}

extension Sweeper {
    /// Replaces what `enforcer` counted by the sweep's measurement, `measured` by `pass`, then
    /// evicts down to `limits` exactly. What it evicts is reported as `.evicted`; the walk
    /// schedules its own compaction.
    func evictToLimits(
        _ limits: LimitEnforcer.Limits, with enforcer: LimitEnforcer, measured: (bytes: Int, count: Int),
        by pass: MeasuringPass
    ) throws -> Outcome {
        try enforcer.walking.withLock {
            enforcer.finish(pass, measured: measured)
            let walked = try enforcer.walk(
                in: database, targetBytes: limits.maximumBytes, targetCount: limits.maximumCount,
                eviction: limits.eviction)
            var outcome = Outcome()
            outcome.removed = walked.evicted
            return outcome
        }
    }
}
