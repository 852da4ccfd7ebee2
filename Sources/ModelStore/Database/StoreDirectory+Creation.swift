import Foundation
internal import CLevelDB
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// A new database folder is built as `<root>/.modelstore-new-<uuid>/` holding only the marker,
// then renamed to its name. rename(2) is atomic, so another process looking at the name sees
// nothing or a folder with its marker: never the empty folder that the old mkdir-then-marker
// sequence showed for a moment, which a concurrent open took for a foreign folder.
//
// The creator holds an exclusive flock(2) on the staging folder's marker from before the
// marker's first byte is written until after the rename. So a staging folder whose marker is
// complete and whose lock another process can take was left by a creator that died (its lock
// went with it): it is removed at once (see UnfinishedCreations.swift). A staging
// folder without a marker, or with an incomplete one, may belong to a creator between its
// steps, and is only removed once it is older than `abandonedCreationAge`; a creator whose
// folder was removed under it that way starts again.

extension StoreDirectory {
    /// The prefix of folders in which new databases are built; reserved, like the trash prefix.
    static let creationPrefix = ".modelstore-new-"

    /// How old a staging folder without a complete marker must be before another process
    /// removes it. A creation takes milliseconds; an older one belongs to a process that died
    /// between its `mkdir` and its marker.
    static let abandonedCreationAge: TimeInterval = 60

    /// Creates the database folder `path` directly in `root`. Returns false when the name
    /// appeared meanwhile (another process created it first), or when the staging folder was
    /// removed under a creator that stalled for longer than ``abandonedCreationAge``, so the
    /// caller classifies the name again and, if it is still missing, creates it again.
    static func create(_ path: String, root: String) throws(ModelStoreError) -> Bool {
        UnfinishedCreations.removeAbandoned(in: root)
        let staging = root + "/" + creationPrefix + UUID().uuidString
        guard mkdir(staging, 0o755) == 0 else {
            throw .io(path: path, message: "cannot create the database directory: \(lastErrorMessage())")
        }
        CrashPoint.creationStaged.reached()
        let lock: Int32
        do {
            guard let locked = try createLockedMarker(in: staging) else { return false }
            lock = locked
        } catch {
            discardCreation(staging)
            throw error
        }
        // Held until the rename is done: meanwhile no cleaner takes the folder for abandoned.
        // Released before the caller opens the database, whose own lock is on the same marker.
        defer { releaseCreationLock(lock) }
        CrashPoint.creationMarked.reached()
        if moveIntoPlace(staging, path) {
            CrashPoint.creationRenamed.reached()
            return true
        }
        let code = errno
        discardCreation(staging)
        guard code == EEXIST || code == ENOTEMPTY || code == ENOENT else {
            let reason = String(cString: strerror(code))
            throw .io(path: path, message: "cannot move the new database into place: \(reason)")
        }
        return false
    }

    /// Creates the marker in `staging` and locks it before writing a byte of it, so a marker
    /// with its complete contents and a free lock always means its creator is gone. Returns the
    /// locked descriptor, or nil when the folder was removed as abandoned before the marker was
    /// in place (the marker is then unlinked, or was never created).
    static func createLockedMarker(in staging: String) throws(ModelStoreError) -> Int32? {
        let fd = open(staging + "/" + markerName, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            if errno == ENOENT { return nil }
            throw .io(path: staging, message: "cannot create the ModelStore marker: \(lastErrorMessage())")
        }
        // Blocking: a cleaner that finds the marker still empty holds the lock only while it
        // looks, and removes the folder only if it is older than `abandonedCreationAge`.
        var locked = flock(fd, LOCK_EX)
        while locked != 0 && errno == EINTR { locked = flock(fd, LOCK_EX) }
        var info = stat()
        guard locked == 0, fstat(fd, &info) == 0 else {
            let message = lastErrorMessage()
            _ = closeDescriptor(fd)
            throw .io(path: staging, message: "cannot lock the new database's marker: \(message)")
        }
        guard info.st_nlink > 0 else {
            releaseCreationLock(fd)  // a cleaner removed it while we waited for the lock
            return nil
        }
        var written = 0
        while written < markerContents.count {
            let result = markerContents.withUnsafeBytes { bytes in
                write(fd, bytes.baseAddress! + written, bytes.count - written)
            }
            if result < 0 && errno == EINTR { continue }
            guard result > 0 else {
                let message = lastErrorMessage()
                releaseCreationLock(fd)
                throw .io(path: staging, message: "cannot write the ModelStore marker: \(message)")
            }
            written += result
        }
        return fd
    }

    static func releaseCreationLock(_ fd: Int32) {
        _ = flock(fd, LOCK_UN)
        _ = closeDescriptor(fd)
    }

    /// Renames without replacing an existing `to`. Where the file system cannot promise that
    /// (EINVAL, ENOSYS), a plain rename(2) still never replaces a non-empty folder, so at worst
    /// it replaces a folder someone created empty in the last microseconds.
    static func moveIntoPlace(_ from: String, _ to: String) -> Bool {
        if modelstore_rename_noreplace(from, to) == 0 { return true }
        guard errno == EINVAL || errno == ENOSYS else { return false }
        return rename(from, to) == 0
    }

    /// Removes this process's own unfinished creation: its marker, then the folder. Never
    /// recursive: a folder that holds anything else keeps it (only the marker goes).
    static func discardCreation(_ staging: String) {
        _ = unlink(staging + "/" + markerName)
        _ = rmdir(staging)
    }
}
