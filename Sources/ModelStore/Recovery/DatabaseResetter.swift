#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Deletes a damaged database's LevelDB files for ``CorruptionPolicy/reset``, so that a kill
/// half-way is finished by the next open instead of leaving part of the data.
///
/// A reset unlinks several files; killed in between, the directory would hold some of them,
/// and the next open (with `.fail`) would throw `corrupted`, or (with `.repair`) bring back
/// part of what the reset was deleting. So the reset writes a journal
/// (`.modelstore-reset`, flushed) before it removes anything and deletes it last; an open
/// that finds the journal finishes the reset first, whatever its policy.
enum DatabaseResetter {
    static let journalName = ".modelstore-reset"

    private static let journalContents = Array("""
        ModelStore is resetting this damaged database (deleting its LevelDB files). If you see
        this file, the reset was interrupted: the next open finishes it.
        format=1

        """.utf8)

    /// Deletes the LevelDB files in `path` and returns their names.
    ///
    /// - Precondition: the caller holds the directory's ``DirectoryLock``.
    static func reset(path: String) throws(ModelStoreError) -> [String] {
        // LevelDB's LOCK first, as for a repair: never delete files another client holds.
        let levelDBLock = try LevelDBFileLock(directory: path)
        defer { levelDBLock.release() }
        try fileOperation { try DatabaseFiles.writeSynced(journalContents, to: path + "/" + journalName) }
        try fileOperation { try DatabaseFiles.syncDirectory(path) }
        let removed = try fileOperation { try DatabaseFiles.removeLevelDBFiles(in: path) }
        // A repair's journal and backup describe files that no longer exist (journal first,
        // as in a commit: a journal must never outlive its backup).
        guard unlink(path + "/" + RepairJournal.journalName) == 0 || errno == ENOENT else {
            throw .io(path: path, message: "cannot remove the repair's journal: \(StoreDirectory.lastErrorMessage())")
        }
        try RepairJournal.removeBackup(in: path)
        guard unlink(path + "/" + journalName) == 0 || errno == ENOENT else {
            throw .io(path: path, message: "cannot remove the reset's journal: \(StoreDirectory.lastErrorMessage())")
        }
        try fileOperation { try DatabaseFiles.syncDirectory(path) }
        return removed
    }

    /// Finishes a reset that a kill interrupted; returns the files it deleted, or nil if
    /// there was none.
    static func finishInterruptedReset(path: String) throws(ModelStoreError) -> [String]? {
        var info = stat()
        guard lstat(path + "/" + journalName, &info) == 0 else { return nil }
        return try reset(path: path)
    }
}
