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

extension StoreDirectory {
    /// The prefix of folders in which new databases are built; reserved, like the trash prefix.
    static let creationPrefix = ".modelstore-new-"

    /// How old an unfinished creation must be before another one removes it. A creation takes
    /// milliseconds; an older one belongs to a process that died between its two steps.
    static let abandonedCreationAge: TimeInterval = 60

    /// Creates the database folder `path` directly in `root`. Returns false when the name
    /// appeared meanwhile (another process created it first), so the caller classifies it again.
    static func create(_ path: String, root: String) throws(ModelStoreError) -> Bool {
        removeAbandonedCreations(in: root)
        let staging = root + "/" + creationPrefix + UUID().uuidString
        guard mkdir(staging, 0o755) == 0 else {
            throw .io(path: path, message: "cannot create the database directory: \(lastErrorMessage())")
        }
        do {
            try writeMarker(in: staging)
        } catch {
            discardCreation(staging)
            throw error
        }
        if moveIntoPlace(staging, path) { return true }
        let code = errno
        discardCreation(staging)
        guard code == EEXIST || code == ENOTEMPTY else {
            let reason = String(cString: strerror(code))
            throw .io(path: path, message: "cannot move the new database into place: \(reason)")
        }
        return false
    }

    /// Renames without replacing an existing `to`. Where the file system cannot promise that
    /// (EINVAL, ENOSYS), a plain rename(2) still never replaces a non-empty folder, so at worst
    /// it replaces a folder someone created empty in the last microseconds.
    private static func moveIntoPlace(_ from: String, _ to: String) -> Bool {
        if modelstore_rename_noreplace(from, to) == 0 { return true }
        guard errno == EINVAL || errno == ENOSYS else { return false }
        return rename(from, to) == 0
    }

    /// Removes an unfinished creation: its marker, then the folder. Never recursive: a folder
    /// that holds anything else keeps it (only the marker goes).
    static func discardCreation(_ staging: String) {
        _ = unlink(staging + "/" + markerName)
        _ = rmdir(staging)
    }

    /// Removes creations that a crashed process left in `root` (older than
    /// ``abandonedCreationAge``); younger ones may still be finishing in another process.
    static func removeAbandonedCreations(in root: String) {
        guard let directory = opendir(root) else { return }
        defer { closedir(directory) }
        let now = Date().timeIntervalSince1970
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard name.utf8.starts(with: creationPrefix.utf8) else { continue }
            let path = root + "/" + name
            var info = stat()
            guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else { continue }
            #if canImport(Darwin)
            let modified = TimeInterval(info.st_mtimespec.tv_sec)
            #else
            let modified = TimeInterval(info.st_mtim.tv_sec)
            #endif
            if now - modified > abandonedCreationAge {
                discardCreation(path)
            }
        }
    }
}
