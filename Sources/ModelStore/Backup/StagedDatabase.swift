import Foundation
internal import CLevelDB
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// MARK: - How a backup or a restore builds a database without ever showing half of one
//
// A backup (in its destination's folder) and a restore (in the root) build the whole database
// in a staging folder, `<parent>/.modelstore-new-<uuid>/`, the folder a creation uses (see
// StoreDirectory+Creation), then move it into place with one rename(2):
//
//   1. mkdir the staging folder; create its marker and flock(2) it before writing a byte of it
//      (exactly as a creation does), and hold the lock until the end;
//   2. write the staging note `.modelstore-staged` (flushed): it says everything in this folder
//      is ModelStore's own, so a cleaner may remove all of it once the builder is gone;
//   3. fill it (LevelDB files), flush every file and the folder;
//   4. rename it to its name: without replacing anything (backup, restore of a new name), or by
//      exchanging it with the database it replaces (restore with `replacingExisting`), which
//      then sits under the staging name and is deleted through the trash;
//   5. remove the note from the installed database (a leftover note there is harmless).
//
// A process killed at any step leaves the name as it was (nothing, or the old database) or
// holding the complete new database: never a part. The staging folder it leaves has a
// complete marker whose lock died with it and the note, so the next backup, restore, creation,
// delete or open in that folder moves it to a `.modelstore-trash-*` folder and removes it (see
// UnfinishedCreations). A staging folder without the note (a plain creation) only ever loses
// its marker: content someone else put there stays.

/// A database being built in a staging folder, then moved into place in one step.
final class StagedDatabase {
    /// The name of the note that says a staging folder's content is all ModelStore's.
    static let noteName = ".modelstore-staged"
    private static let noteContents = Array("""
        ModelStore is building a database here (a backup or a restore). If you see this folder,
        the process that built it was interrupted: the next backup, restore, creation, delete or
        open in this directory removes it.
        format=1

        """.utf8)

    /// The folder that holds the staging folder and the final name.
    let parent: String
    /// The staging folder.
    let path: String
    private var lock: Int32?

    /// Creates and locks a staging folder in `parent` (a canonical directory), after removing
    /// staging folders there whose builders are gone.
    init(in parent: String) throws(ModelStoreError) {
        UnfinishedCreations.removeAbandoned(in: parent)
        self.parent = parent
        path = parent + "/" + StoreDirectory.creationPrefix + UUID().uuidString
        guard mkdir(path, 0o755) == 0 else {
            throw .io(path: path, message: "cannot create a staging folder: \(StoreDirectory.lastErrorMessage())")
        }
        do throws(ModelStoreError) {
            guard let fd = try StoreDirectory.createLockedMarker(in: path) else {
                throw ModelStoreError.io(path: path, message: "the staging folder was removed while it was created")
            }
            lock = fd
            try fileOperation { try DatabaseFiles.writeSynced(Self.noteContents, to: path + "/" + Self.noteName) }
            try fileOperation { try DatabaseFiles.syncDirectory(path) }
        } catch {
            discard()
            throw error
        }
    }

    deinit {
        finish()
    }

    /// Flushes every LevelDB file and the staging folder, so what is renamed into place is
    /// durable first.
    func sync() throws(ModelStoreError) {
        try fileOperation { try DatabaseFiles.syncLevelDBFiles(in: path) }
    }

    /// Renames the staging folder to `target` unless something is there. Returns false when
    /// something is (nothing changed).
    func install(at target: String) throws(ModelStoreError) -> Bool {
        guard StoreDirectory.moveIntoPlace(path, target) else {
            let code = errno
            if code == EEXIST || code == ENOTEMPTY { return false }
            let reason = String(cString: strerror(code))
            throw .io(path: target, message: "cannot move the new database into place: \(reason)")
        }
        finishInstall(at: target)
        return true
    }

    /// Exchanges the staging folder with the database at `target` in one step; the old
    /// database is then under the staging name, marked as ModelStore's own, and deleted through
    /// the trash. Returns false (nothing changed) when the file system cannot exchange names.
    ///
    /// - Precondition: the caller holds the old database's locks and it is closed here.
    func exchange(with target: String) throws(ModelStoreError) -> Bool {
        // The old database gets the note first: killed after the exchange, the staging name
        // holds it, and the note lets the cleaner remove all of it.
        try fileOperation { try DatabaseFiles.writeSynced(Self.noteContents, to: target + "/" + Self.noteName) }
        guard modelstore_rename_exchange(path, target) == 0 else {
            let code = errno
            _ = unlink(target + "/" + Self.noteName)
            if code == EINVAL || code == ENOSYS || code == ENOTSUP { return false }
            let reason = String(cString: strerror(code))
            throw .io(path: target, message: "cannot exchange the database with the restored one: \(reason)")
        }
        finishInstall(at: target)
        CrashPoint.restoreExchanged.reached()
        return true
    }

    private func finishInstall(at target: String) {
        _ = try? fileOperation { try DatabaseFiles.syncDirectory(parent) }
        CrashPoint.stagingInstalled.reached()
        _ = unlink(target + "/" + Self.noteName)
    }

    /// Removes what is under the staging name (the unfinished build, or the database an
    /// exchange replaced) through the trash. Best effort: what stays is removed later.
    func discard() {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        let trash = DatabaseTrash.prefix + UUID().uuidString
        guard rename(path, parent + "/" + trash) == 0 else { return }
        try? DatabaseTrash.remove(trash, in: parent)
    }

    private func releaseLock() {
        if let lock { StoreDirectory.releaseCreationLock(lock) }
        lock = nil
    }

    /// Removes what is left under the staging name (an unfinished build, or the database an
    /// exchange replaced) and releases the staging lock. Safe to call more than once.
    func finish() {
        discard()
        releaseLock()
    }
}
