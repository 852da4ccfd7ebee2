// The engine throws its own failures (LevelDB's, and its file work's); the store's layers turn
// them into the one public error, ``ModelStoreError``, here.

extension LevelDBFailure {
    /// Converts the failure into the public error for the database at `path`.
    func storeError(path: String) -> ModelStoreError {
        if isLockConflict { return .locked(path: path, message: message) }
        if kind == .corruption, Self.isReadPastEndOfTable(message) {
            return .corrupted(
                path: path, message: message + " (a block handle points past the end of the table: the table is damaged)")
        }
        switch kind {
        case .corruption: return .corrupted(path: path, message: message)
        default: return .io(path: path, message: message)
        }
    }
}

extension FileFailure {
    /// The public error for the failure.
    var storeError: ModelStoreError { .io(path: path, message: message) }
}

/// Runs the engine's file work `body`, turning its failure into ``ModelStoreError/io(path:message:)``.
@inline(__always)
func fileOperation<Result>(_ body: () throws -> Result) throws(ModelStoreError) -> Result {
    do {
        return try body()
    } catch let failure as FileFailure {
        throw failure.storeError
    } catch let error as ModelStoreError {
        throw error
    } catch {
        throw .io(path: "", message: String(describing: error))
    }
}
