extension ModelStore {
    /// LevelDB's estimate of the bytes the records in `range` take on disk (after
    /// compression).
    ///
    /// It counts only LevelDB's sorted tables, so writes still in the in-memory write buffer
    /// are not counted: on a new database it is 0 until the buffer is flushed, which happens
    /// when it reaches ``Configuration/writeBufferSize`` (16 MiB by default), on
    /// ``compact(in:)``, or when the database is next opened.
    public func approximateSize(in range: KeyRange = .all) throws -> UInt64 {
        let database = try scope.open()
        let limit = range.upperBound ?? [UInt8](repeating: 0xFF, count: Self.maximumKeyLength + 1)
        return try database.run { engine in
            try StoredPolicies.approximateSize(start: range.lowerBound, limit: limit, in: engine)
        }
    }

    /// LevelDB's statistics report (the `leveldb.stats` property): files and sizes per
    /// level and compaction totals, for diagnostics.
    public func statistics() throws -> String {
        try property(named: "leveldb.stats") ?? ""
    }

    /// A LevelDB property, such as `leveldb.stats`, `leveldb.sstables`,
    /// `leveldb.approximate-memory-usage` or `leveldb.num-files-at-level0`; nil if LevelDB
    /// does not know the name.
    public func property(named name: String) throws -> String? {
        let database = try scope.open()
        return try database.run { engine in try engine.property(name) }
    }

    /// Compacts the records in `range`, so space held by removed and overwritten records is
    /// given back to the file system. It can take a while on a large database.
    public func compact(in range: KeyRange = .all) throws {
        let database = try scope.open()
        try database.run { engine in
            try engine.compact(start: range.lowerBound.isEmpty ? nil : range.lowerBound, limit: range.upperBound)
        }
    }
}
