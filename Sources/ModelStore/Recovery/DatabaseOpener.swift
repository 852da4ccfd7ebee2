import Logging

/// Opens LevelDB for a database directory and applies the configuration's
/// ``CorruptionPolicy`` when the database turns out to be damaged.
///
/// The caller holds the directory's ``DirectoryLock`` and the registry's lock, so nothing
/// else in any ModelStore process can open, repair or delete the database meanwhile.
enum DatabaseOpener {
    static func open(path: String, options: EngineOptions, logger: Logger) throws(ModelStoreError) -> LevelDB {
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
            let removed = try DatabaseFiles.removeLevelDBFiles(in: path)
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

    private static func openChecked(path: String, options: EngineOptions) throws(LevelDBFailure) -> LevelDB {
        try DatabaseFiles.checkCurrentFile(in: path)
        return try LevelDB(path: path, options: options)
    }
}
