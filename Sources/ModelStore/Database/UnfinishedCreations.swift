import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// MARK: - Creations a crash interrupted
//
// A process killed while it creates a database leaves its staging folder,
// `<root>/.modelstore-new-<uuid>/` (see StoreDirectory+Creation). The next operation that can
// know the creator is gone removes it: every creation (before its own), `deleteDatabase` and
// `deleteAllDatabases` (synchronously), and any open in the root (in the background, with the
// trash). A staging folder is removed when
//
// - its marker is complete and its lock is free: the creator locks the marker before writing
//   it and keeps the lock until after the rename, so a free lock on a complete marker means the
//   creator died (the kernel released its lock);
// - it has no marker, or an incomplete one, and is older than `abandonedCreationAge`: younger,
//   its creator may still be between its `mkdir` and its marker;
// - it holds the note of a backup's or restore's build (`.modelstore-staged`, see
//   StagedDatabase) and its marker's lock is free: then all of it is ModelStore's, and it is
//   renamed to a trash folder and removed whole (see DatabaseTrash).
//
// Only ModelStore's own is removed: a real directory (never a link or a file with the prefix),
// and in it only the marker, then the folder with `rmdir`, which refuses a folder that holds
// anything else; that content stays (unless the note says a backup or restore built all of it).
// Everything works on directory descriptors and checks, while it holds the marker's lock, that
// the name still refers to the folder it examined, so a creation that finished meanwhile
// (renamed into place) is never touched.

/// Finding and removing the staging folders of creations a crash interrupted.
package enum UnfinishedCreations {
    private static let prefix = StoreDirectory.creationPrefix
    private static let markerName = StoreDirectory.markerName
    private static let markerContents = StoreDirectory.markerContents

    /// The names of the staging folders in `root`, sorted: real directories with the creation
    /// prefix, finished or not (a live creation is listed too).
    package static func pending(in root: String) -> [String] {
        DatabaseFiles.names(in: root).filter { name in
            guard name.utf8.starts(with: prefix.utf8) else { return false }
            var info = stat()
            return lstat(root + "/" + name, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
        }
    }

    /// Removes the staging folders in `root` whose creators are gone (see above). Best effort:
    /// a folder that cannot be examined or removed stays for the next try.
    static func removeAbandoned(in root: String) {
        let names = pending(in: root)
        guard !names.isEmpty else { return }
        let rootFD = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard rootFD >= 0 else { return }
        defer { _ = closeDescriptor(rootFD) }
        for name in names {
            removeIfAbandoned(name, in: rootFD, root: root)
        }
    }

    private static func removeIfAbandoned(_ name: String, in rootFD: Int32, root: String) {
        let folder = openat(rootFD, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard folder >= 0 else { return }  // gone, a link, or not a directory: not ours to touch
        defer { _ = closeDescriptor(folder) }
        var folderInfo = stat()
        guard fstat(folder, &folderInfo) == 0 else { return }

        // O_NONBLOCK: a FIFO named like the marker must not stall us (it is refused below).
        let marker = openat(folder, markerName, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard marker >= 0 else {
            // No marker (a link named like it is not ours: ELOOP leaves the folder alone).
            if errno == ENOENT, isOld(folderInfo), isStill(name, in: rootFD, folderInfo) {
                _ = unlinkat(rootFD, name, AT_REMOVEDIR)  // refuses a folder that holds anything
            }
            return
        }
        defer { _ = closeDescriptor(marker) }
        var markerInfo = stat()
        guard fstat(marker, &markerInfo) == 0, markerInfo.st_mode & S_IFMT == S_IFREG else { return }
        guard flock(marker, LOCK_EX | LOCK_NB) == 0 else { return }  // its creator is at work
        defer { _ = flock(marker, LOCK_UN) }
        // Under the lock: the creator renames only while it holds the lock, so a folder still
        // under this name with this marker is not going to become a database any more.
        var current = stat()
        guard isStill(name, in: rootFD, folderInfo),
            fstatat(folder, markerName, &current, AT_SYMLINK_NOFOLLOW) == 0,
            current.st_dev == markerInfo.st_dev, current.st_ino == markerInfo.st_ino
        else { return }
        // A backup's or restore's build (see StagedDatabase) holds the note: all of it is ours.
        var note = stat()
        if fstatat(folder, StagedDatabase.noteName, &note, AT_SYMLINK_NOFOLLOW) == 0, note.st_mode & S_IFMT == S_IFREG {
            let trash = DatabaseTrash.prefix + UUID().uuidString
            guard renameat(rootFD, name, rootFD, trash) == 0 else { return }
            try? DatabaseTrash.remove(trash, in: root)
            return
        }
        guard isComplete(marker) || (isOld(folderInfo) && isOld(markerInfo)) else { return }
        guard unlinkat(folder, markerName, 0) == 0 else { return }
        _ = unlinkat(rootFD, name, AT_REMOVEDIR)  // refuses a folder that holds anything else
    }

    /// Whether `name` in the root still names the directory `info` describes.
    private static func isStill(_ name: String, in rootFD: Int32, _ info: stat) -> Bool {
        var current = stat()
        return fstatat(rootFD, name, &current, AT_SYMLINK_NOFOLLOW) == 0
            && current.st_dev == info.st_dev && current.st_ino == info.st_ino
    }

    /// Whether the marker at `fd` holds exactly the contents a creator writes.
    private static func isComplete(_ fd: Int32) -> Bool {
        var buffer = [UInt8](repeating: 0, count: markerContents.count + 1)
        var filled = 0
        while filled < buffer.count {
            let result = buffer.withUnsafeMutableBytes { bytes in
                pread(fd, bytes.baseAddress! + filled, bytes.count - filled, off_t(filled))
            }
            if result < 0 && errno == EINTR { continue }
            guard result > 0 else { break }
            filled += result
        }
        return filled == markerContents.count && buffer.prefix(filled).elementsEqual(markerContents)
    }

    /// Whether `info`'s modification time is more than ``StoreDirectory/abandonedCreationAge`` ago.
    private static func isOld(_ info: stat) -> Bool {
        #if canImport(Darwin)
        let modified = TimeInterval(info.st_mtimespec.tv_sec)
        #else
        let modified = TimeInterval(info.st_mtim.tv_sec)
        #endif
        return Date().timeIntervalSince1970 - modified > StoreDirectory.abandonedCreationAge
    }
}
