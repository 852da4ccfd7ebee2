#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// MARK: - Why a repair keeps a journal
//
// LevelDB's `RepairDB` (repair.cc) changes a database in several steps, none of them undone
// if the process dies in between:
//
//   1. each `<n>.log` is replayed into a new table `<m>.ldb`, then the log is renamed to
//      `lost/<n>.log`;
//   2. each table is scanned; one it cannot open is renamed into `lost/`; one with damaged
//      blocks is copied to a new `<m>.ldb`, the original renamed into `lost/`, and the copy
//      renamed to the original's name;
//   3. a new descriptor is written to `000001.dbtmp`, every old `MANIFEST-*` is renamed into
//      `lost/`, the temporary is renamed to `MANIFEST-000001`, and `CURRENT` is replaced
//      (written to a temporary, renamed).
//
// Killed after step 1, `CURRENT` still names the old MANIFEST, which knows nothing of the
// converted table: the next open deletes it as obsolete, and the log's records survive only
// in `lost/` (issue 12, item 6: 40,000 of 60,000 records gone, and the open succeeded).
//
// LevelDB never rewrites an existing file in place: it creates new files, renames and
// deletes. So hard links to every file taken before the repair are a complete, cheap backup
// (no data is copied). ModelStore's own step before the repair, the log scrubber, writes a
// copy and renames it over the log for the same reason.
//
// Protocol (each step flushed, file and directory, before the next):
//
//   begin:    remove any stale backup folder; link CURRENT, MANIFEST-*, *.log, *.ldb/*.sst
//             into `.modelstore-repair-backup/`; then write the journal `.modelstore-repair`.
//             The journal's existence means "the backup is complete and a repair is under way".
//   repair:   scrub the logs, run LevelDB's repair.
//   commit:   unlink the journal (the commit point), then remove the backup folder.
//   recover:  an open or a repair that finds the journal restores the directory from the
//             backup (removes the LevelDB files, links the backup's back) and repairs again.
//             A backup folder without a journal is left over from a begin or a commit that
//             was interrupted; LevelDB's files were not yet, or are already, final: remove it.
//
// The backup and the journal have names LevelDB does not recognise (its `ParseFileName`
// rejects them), so LevelDB's open, repair and `DestroyDB` never touch them.

/// The journal and hard-link backup that make ``DatabaseRepairer`` crash-safe.
enum RepairJournal {
    static let journalName = ".modelstore-repair"
    static let backupName = ".modelstore-repair-backup"

    private static let journalContents = Array("""
        ModelStore is repairing this database. If you see this file, a repair was interrupted:
        the next open or repair restores the files from .modelstore-repair-backup and repairs again.
        format=1

        """.utf8)

    /// The kinds of file a backup holds: everything LevelDB reads. `LOCK`, `LOG` and
    /// temporaries carry no data.
    private static let backedUp: [DatabaseFiles.Kind] = [.current, .manifest, .writeAheadLog, .table]

    /// Whether an interrupted repair's journal is in `directory`.
    static func isPending(in directory: String) -> Bool {
        var info = stat()
        return lstat(directory + "/" + journalName, &info) == 0
    }

    /// Links LevelDB's files into a fresh backup folder, then writes the journal.
    static func begin(in directory: String) throws(ModelStoreError) {
        let backup = directory + "/" + backupName
        try removeBackup(in: directory)
        guard mkdir(backup, 0o755) == 0 else {
            throw .io(
                path: backup, message: "cannot create the repair's backup folder: \(StoreDirectory.lastErrorMessage())")
        }
        for name in try fileOperation({ try DatabaseFiles.listing(of: directory) }) where backedUp.contains(DatabaseFiles.kind(ofName: name)) {
            guard link(directory + "/" + name, backup + "/" + name) == 0 else {
                throw .io(
                    path: directory + "/" + name,
                    message: "cannot link the file into the repair's backup: \(StoreDirectory.lastErrorMessage())")
            }
        }
        try fileOperation { try DatabaseFiles.syncDirectory(backup) }
        try fileOperation { try DatabaseFiles.syncDirectory(directory) }
        try fileOperation { try DatabaseFiles.writeSynced(journalContents, to: directory + "/" + journalName) }
        try fileOperation { try DatabaseFiles.syncDirectory(directory) }
        CrashPoint.repairBackedUp.reached()
    }

    /// Marks the repair finished (removes the journal), then removes the backup.
    static func commit(in directory: String) throws(ModelStoreError) {
        guard unlink(directory + "/" + journalName) == 0 || errno == ENOENT else {
            throw .io(
                path: directory, message: "cannot remove the repair's journal: \(StoreDirectory.lastErrorMessage())")
        }
        try fileOperation { try DatabaseFiles.syncDirectory(directory) }
        CrashPoint.repairCommitted.reached()
        try removeBackup(in: directory)
    }

    /// Puts back the files the backup holds, exactly as they were before the interrupted
    /// repair, and keeps the journal (the caller repairs again, then commits).
    ///
    /// Every step can be repeated: killed here, the next attempt restores from the same,
    /// untouched backup.
    static func restore(in directory: String) throws(ModelStoreError) {
        let backup = directory + "/" + backupName
        var info = stat()
        guard lstat(backup, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
            // Never remove files without the backup that puts them back.
            throw .corrupted(
                path: directory,
                message: "an interrupted repair left its journal (\(journalName)) but its backup folder "
                    + "(\(backupName)) is missing; copy the database away and repair the copy")
        }
        let saved = try fileOperation { try DatabaseFiles.listing(of: backup) }
        for name in try fileOperation({ try DatabaseFiles.listing(of: directory) }) {
            switch DatabaseFiles.kind(ofName: name) {
            case .current, .manifest, .writeAheadLog, .table, .temporary:
                guard unlink(directory + "/" + name) == 0 || errno == ENOENT else {
                    throw .io(
                        path: directory + "/" + name,
                        message: "cannot remove a file of the interrupted repair: \(StoreDirectory.lastErrorMessage())")
                }
            default:
                continue  // the marker, the journal, the backup, LOCK, LOG, lost/
            }
        }
        CrashPoint.restoreEmptied.reached()
        for name in saved where backedUp.contains(DatabaseFiles.kind(ofName: name)) {
            guard link(backup + "/" + name, directory + "/" + name) == 0 else {
                throw .io(
                    path: backup + "/" + name,
                    message: "cannot restore the file from the repair's backup: \(StoreDirectory.lastErrorMessage())")
            }
        }
        try fileOperation { try DatabaseFiles.syncDirectory(directory) }
    }

    /// Removes a backup folder left behind with no journal (or after a commit).
    static func removeBackup(in directory: String) throws(ModelStoreError) {
        let backup = directory + "/" + backupName
        var info = stat()
        guard lstat(backup, &info) == 0 else { return }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            // Not something a repair created: leave it, and refuse to repair over it.
            throw .io(path: backup, message: "a file is in the way of the repair's backup folder; move it away")
        }
        for name in try fileOperation({ try DatabaseFiles.listing(of: backup) }) {
            guard unlink(backup + "/" + name) == 0 || errno == ENOENT else {
                throw .io(path: backup + "/" + name,
                          message: "cannot remove the repair's backup: \(StoreDirectory.lastErrorMessage())")
            }
        }
        guard rmdir(backup) == 0 || errno == ENOENT else {
            throw .io(path: backup, message: "cannot remove the repair's backup: \(StoreDirectory.lastErrorMessage())")
        }
        try fileOperation { try DatabaseFiles.syncDirectory(directory) }
    }
}
