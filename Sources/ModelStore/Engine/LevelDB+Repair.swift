internal import CLevelDB

extension LevelDB {
    /// Runs LevelDB's `RepairDB` on the closed database at `path`.
    ///
    /// LevelDB takes no lock for a repair: the caller must hold the database's
    /// ``DirectoryLock`` and have it closed in this process. Paranoid checks are always on
    /// here, so tables are read with their checksums verified and damaged blocks are dropped
    /// instead of copied. Logs are not checksummed by LevelDB's repair; run
    /// ``LevelDBLogScrubber`` first.
    static func repair(path: String, options settings: EngineOptions) throws(LevelDBFailure) {
        var settings = settings
        settings.paranoidChecks = true
        let options = LevelDBOpenOptions(settings, createIfMissing: false)
        try withLevelDBErrorPointer { leveldb_repair_db(options.options, path, $0) }
    }
}
