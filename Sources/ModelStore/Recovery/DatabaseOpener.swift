import Logging

/// Opens LevelDB for a database directory and applies the configuration's
/// ``CorruptionPolicy`` when the database turns out to be damaged.
///
/// The caller holds the directory's ``DirectoryLock`` and the registry's lock, so nothing
/// else in any ModelStore process can open, repair or delete the database meanwhile.
enum DatabaseOpener {
    static func open(path: String, options: EngineOptions, logger: Logger) throws(ModelStoreError) -> LevelDB {
        try finishInterruptedWork(path: path, options: options, logger: logger)
        if options.finishesInterruptedDeletions {
            DatabaseTrash.scheduleCleanup(inRootOf: path, logger: logger)
        }
        let failure: LevelDBFailure
        do {
            return try openChecked(path: path, options: options)
        } catch {
            failure = error
        }
        // Only damage may lead to a repair or a reset. A lock conflict, a missing permission,
        // a full disk or too many open files says nothing about the data, so it is thrown
        // as it is and no file is touched.
        guard failure.kind == .corruption else { throw failure.storeError(path: path) }

        var metadata: Logger.Metadata = [
            "database": "\(path)", "error": "\(failure.message)", "corruptionPolicy": "\(options.corruptionPolicy)",
        ]
        switch options.corruptionPolicy {
        case .fail:
            logger.error("Database is damaged; not opening it", metadata: metadata)
            throw .corrupted(path: path, message: failure.message)

        case .repair:
            logger.warning("Database is damaged; repairing it", metadata: metadata)
            let report = try DatabaseRepairer.repair(path: path, options: options)
            metadata["recordsReadable"] = "\(report.recordsReadable)"
            metadata["discardedLogRecords"] = "\(report.discardedLogRecords)"
            metadata["levelDBLog"] = "\(report.levelDBLog.joined(separator: "; "))"
            logger.notice("Repaired damaged database", metadata: metadata)

        case .reset:
            logger.warning("Database is damaged; deleting its LevelDB files and starting empty", metadata: metadata)
            let removed = try DatabaseResetter.reset(path: path)
            metadata["deletedFiles"] = "\(removed.joined(separator: " "))"
            logger.notice("Reset damaged database", metadata: metadata)
        }
        do {
            return try openChecked(path: path, options: options)
        } catch {
            logger.error(
                "Database still does not open after \(options.corruptionPolicy)",
                metadata: ["database": "\(path)", "error": "\(error.message)"])
            throw error.storeError(path: path)
        }
    }

    /// A reset or a repair killed before it finished left its journal: finish it before
    /// LevelDB sees the files (after a repair's kill it would delete the converted tables as
    /// obsolete). Runs whatever the corruption policy: the work was asked for, and undoing
    /// it alone could leave a database the policy then refuses.
    private static func finishInterruptedWork(
        path: String, options: EngineOptions, logger: Logger
    ) throws(ModelStoreError) {
        if let removed = try DatabaseResetter.finishInterruptedReset(path: path) {
            logger.warning("Finished a reset that was interrupted", metadata: [
                "database": "\(path)", "deletedFiles": "\(removed.joined(separator: " "))",
            ])
        }
        guard let report = try DatabaseRepairer.finishInterruptedRepair(path: path, options: options) else { return }
        logger.warning("Finished a repair that was interrupted", metadata: [
            "database": "\(path)", "recordsReadable": "\(report.recordsReadable)",
            "discardedLogRecords": "\(report.discardedLogRecords)",
        ])
    }

    private static func openChecked(path: String, options: EngineOptions) throws(LevelDBFailure) -> LevelDB {
        try DatabaseFiles.checkCurrentFile(in: path)
        return try LevelDB(path: path, options: options)
    }
}
