import Foundation
import Logging
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// MARK: - How a database is deleted, and finished if the process dies
//
// A delete renames `<root>/<name>` to `<root>/.modelstore-trash-<uuid>` (so a crash never
// leaves a half-deleted database under its name), then removes the trash folder's contents,
// its `.modelstore` marker last, then the folder.
//
// Any real directory (not a symbolic link) in the root whose name starts with
// `.modelstore-trash-` is ModelStore's: database names cannot start with it, so nothing but a
// delete creates one. Such a folder is "pending trash" whatever it still holds (an older
// ModelStore removed the marker first, and a kill then left a folder no one recognised). It is
// finished by the next `deleteDatabase`, `deleteAllDatabases` (synchronously: they are
// deletions, and the caller expects them to take time) and by the next open of any database in
// the root (in the background on one utility queue, so an open never waits for thousands of
// unlinks). Two processes may finish the same trash at once: every step tolerates a name the
// other one already removed.
//
// Removal works on directory descriptors (`openat` with `O_NOFOLLOW`, `unlinkat`), never on
// paths, so a symbolic link inside the trash (or one swapped in meanwhile) is removed as a
// link and its target is never touched.

/// Deleting database folders through the trash, and finishing trash left by a crash.
package enum DatabaseTrash {
    static let prefix = StoreDirectory.trashPrefix

    /// Renames the database at `path` to a new trash folder, then removes it. The caller holds
    /// the database's ``DirectoryLock`` and ``LevelDBFileLock``.
    static func delete(_ path: String, root: String) throws(ModelStoreError) {
        let name = prefix + UUID().uuidString
        guard rename(path, root + "/" + name) == 0 else {
            let reason = StoreDirectory.lastErrorMessage()
            throw .io(path: path, message: "cannot move the database aside to delete it: \(reason)")
        }
        // Durable before anything is removed, so after a power loss the database is either
        // whole under its name or recognisable trash.
        try fileOperation { try DatabaseFiles.syncDirectory(root) }
        CrashPoint.deleteRenamed.reached()
        do {
            try remove(name, in: root)
        } catch {
            throw .io(path: path, message: "cannot delete the database's files (\(error)); the next delete finishes it")
        }
    }

    /// The names of the pending trash folders in `root`, sorted: real directories with the
    /// trash prefix.
    package static func pending(in root: String) -> [String] {
        DatabaseFiles.names(in: root).filter { name in
            guard name.utf8.starts(with: prefix.utf8) else { return false }
            var info = stat()
            return lstat(root + "/" + name, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
        }
    }

    /// Removes every pending trash folder in `root`; tries each one, then throws the first
    /// failure.
    static func finishAll(in root: String) throws(ModelStoreError) {
        var firstFailure: ModelStoreError?
        for name in pending(in: root) {
            do {
                try remove(name, in: root)
            } catch {
                firstFailure = firstFailure ?? error
            }
        }
        if let firstFailure { throw firstFailure }
    }

    // MARK: - In the background, after an open

    private static let queue = DispatchQueue(label: "ModelStore.trash", qos: .utility)
    /// Roots with a cleanup queued, by their bytes: an NFC and an NFD spelling are two folders.
    private static let scheduled = Locked<Set<ByteKey>>([])

    /// Finishes pending trash, and removes creations a crash interrupted (see
    /// ``UnfinishedCreations``), in the root of the database at `path` in the background, once
    /// per root at a time. Failures are logged; the trash stays pending for the next try.
    static func scheduleCleanup(inRootOf path: String, logger: Logger) {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return }
        let root = String(path[..<slash])
        let isNew = scheduled.withLock { $0.insert(ByteKey(root)).inserted }
        guard isNew else { return }
        queue.async {
            scheduled.withLock { _ = $0.remove(ByteKey(root)) }
            UnfinishedCreations.removeAbandoned(in: root)
            do {
                try finishAll(in: root)
            } catch {
                logger.warning("Cannot finish deleting a database", metadata: ["root": "\(root)", "error": "\(error)"])
            }
        }
    }

    /// Waits until the background cleanups scheduled so far have finished (for tests).
    static func waitForCleanup() {
        queue.sync {}
    }

    // MARK: - Removal without following links

    /// Removes the trash folder `name` in `root`: its contents, then its marker, then itself.
    /// A name that is not a real directory (a link, a file) is left alone.
    static func remove(_ name: String, in root: String) throws(ModelStoreError) {
        let rootFD = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard rootFD >= 0 else {
            if errno == ENOENT { return }
            throw .io(path: root, message: "cannot open the root directory: \(StoreDirectory.lastErrorMessage())")
        }
        defer { _ = closeDescriptor(rootFD) }
        let path = root + "/" + name
        let trashFD = openat(rootFD, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard trashFD >= 0 else {
            if errno == ENOENT || errno == ELOOP || errno == ENOTDIR { return }  // gone, or not ours
            throw .io(path: path, message: "cannot open the trash folder: \(StoreDirectory.lastErrorMessage())")
        }
        do {
            defer { _ = closeDescriptor(trashFD) }
            try removeContents(of: trashFD, path: path, keeping: StoreDirectory.markerName)
            CrashPoint.trashEmptied.reached()
            try removeEntry(StoreDirectory.markerName, in: trashFD, path: path, directory: false)
            CrashPoint.trashUnmarked.reached()
        }
        try removeEntry(name, in: rootFD, path: root, directory: true)
    }

    /// Removes everything in the directory `fd` except `keeping`, depth first. Names are
    /// handled as bytes: a name that is not UTF-8 is removed like any other.
    private static func removeContents(of fd: Int32, path: String, keeping: String?) throws(ModelStoreError) {
        let kept = keeping.map { Array($0.utf8CString) }
        for name in try entries(of: fd, path: path) where name != kept {
            let shown = path + "/" + String(decoding: name.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
            var info = stat()
            guard fstatat(fd, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else {
                if errno == ENOENT { continue }
                throw .io(path: shown, message: "cannot inspect: \(StoreDirectory.lastErrorMessage())")
            }
            let isDirectory = info.st_mode & S_IFMT == S_IFDIR
            if isDirectory {
                let child = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                if child >= 0 {
                    defer { _ = closeDescriptor(child) }
                    try removeContents(of: child, path: shown, keeping: nil)
                } else if errno == ENOENT {
                    continue
                } else if errno != ELOOP && errno != ENOTDIR {  // swapped for a link: unlink that
                    throw .io(path: shown, message: "cannot open: \(StoreDirectory.lastErrorMessage())")
                }
            }
            try removeEntry(name, in: fd, shown: shown, directory: isDirectory)
        }
    }

    private static func removeEntry(
        _ name: String, in fd: Int32, path: String, directory: Bool
    ) throws(ModelStoreError) {
        try removeEntry(Array(name.utf8CString), in: fd, shown: path + "/" + name, directory: directory)
    }

    private static func removeEntry(
        _ name: [CChar], in fd: Int32, shown: String, directory: Bool
    ) throws(ModelStoreError) {
        var result = unlinkat(fd, name, directory ? AT_REMOVEDIR : 0)
        if result != 0 && directory && errno == ENOTDIR {
            result = unlinkat(fd, name, 0)  // a directory swapped for a link or file
        }
        guard result == 0 || errno == ENOENT else {
            throw .io(path: shown, message: "cannot delete: \(StoreDirectory.lastErrorMessage())")
        }
    }

    /// The names in the directory `fd`, as NUL-terminated bytes.
    private static func entries(of fd: Int32, path: String) throws(ModelStoreError) -> [[CChar]] {
        let copy = dup(fd)
        guard copy >= 0, let stream = fdopendir(copy) else {
            if copy >= 0 { _ = closeDescriptor(copy) }
            throw .io(path: path, message: "cannot list: \(StoreDirectory.lastErrorMessage())")
        }
        defer { closedir(stream) }
        var names: [[CChar]] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
                bytes.prefix { $0 != 0 }.map { CChar(bitPattern: $0) } + [0]
            }
            if name != [46, 0] && name != [46, 46, 0] { names.append(name) }  // "." and ".."
        }
        return names
    }
}
