import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// MARK: - Directory layout
//
//   <root>/                          Configuration.directory
//     <name>/                        one folder per database; ModelStore.url
//       .modelstore                  marker: says the folder is ours; ModelStore holds an
//                                    exclusive flock(2) on it while the database is open
//       CURRENT, LOCK, LOG, MANIFEST-*, *.log, *.ldb   LevelDB's own files
//     .modelstore-trash-<uuid>/      a database being deleted (renamed first, so a crash
//                                    mid-delete never leaves a half-deleted database behind
//                                    under its name); see DatabaseTrash
//
// ModelStore never opens, repairs or deletes a folder without the marker, and never follows
// a symbolic link in the root, so user files next to the databases are left alone.

/// File-system operations on database directories. Nothing here touches LevelDB.
enum StoreDirectory {
    static let markerName = ".modelstore"
    static let trashPrefix = ".modelstore-trash-"
    static let markerContents = Array("""
        This folder is a ModelStore database (LevelDB files plus this marker).
        ModelStore only opens and deletes folders that contain this file.
        format=1

        """.utf8)

    /// What a path in the root turned out to be.
    enum Kind: Equatable {
        case missing
        case database
        case foreign
    }

    /// Creates the root if needed and returns its canonical path, so that differently
    /// spelled paths (`/x/./db`, symlinked roots) map to one database.
    static func canonicalRoot(_ url: URL, create: Bool) throws(ModelStoreError) -> String? {
        let path = url.standardizedFileURL.path
        if create {
            do {
                try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            } catch {
                throw .io(path: path, message: "cannot create the root directory: \(error.localizedDescription)")
            }
        }
        guard let resolved = realpath(path, nil) else {
            if !create && errno == ENOENT { return nil }
            throw .io(path: path, message: "cannot resolve the root directory: \(lastErrorMessage())")
        }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Classifies `path` without following symbolic links.
    static func kind(of path: String) -> Kind {
        var info = stat()
        guard lstat(path, &info) == 0 else { return errno == ENOENT ? .missing : .foreign }
        guard info.st_mode & S_IFMT == S_IFDIR else { return .foreign }
        var marker = stat()
        guard lstat(path + "/" + markerName, &marker) == 0, marker.st_mode & S_IFMT == S_IFREG else {
            return .foreign
        }
        return .database
    }

    /// Makes sure `path` is a database directory of ours, creating it if it is missing.
    ///
    /// An existing empty folder is adopted; a folder with other content, a file or a
    /// symbolic link is refused with ``ModelStoreError/notAModelStore(path:)``.
    static func prepare(_ path: String) throws(ModelStoreError) {
        if mkdir(path, 0o755) != 0 && errno != EEXIST {
            throw .io(path: path, message: "cannot create the database directory: \(lastErrorMessage())")
        }
        switch kind(of: path) {
        case .database:
            return
        case .missing:
            throw .io(path: path, message: "the database directory vanished while it was being created")
        case .foreign:
            var info = stat()
            guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR, try isEmptyDirectory(path) else {
                throw .notAModelStore(path: path)
            }
            try writeMarker(in: path)
        }
    }

    private static func writeMarker(in directory: String) throws(ModelStoreError) {
        let fd = open(directory + "/" + markerName, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw .io(path: directory, message: "cannot create the ModelStore marker: \(lastErrorMessage())")
        }
        defer { _ = closeDescriptor(fd) }
        let written = markerContents.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        guard written == markerContents.count else {
            throw .io(path: directory, message: "cannot write the ModelStore marker: \(lastErrorMessage())")
        }
    }

    /// Throws `io` when the folder cannot be listed (for example with no file descriptors
    /// left), rather than mistaking our own new folder for a foreign one.
    private static func isEmptyDirectory(_ path: String) throws(ModelStoreError) -> Bool {
        guard let directory = opendir(path) else {
            throw .io(path: path, message: "cannot list the database directory: \(lastErrorMessage())")
        }
        defer { closedir(directory) }
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { return false }
        }
        return true
    }

    /// Removes a database directory through a trash folder (see ``DatabaseTrash``). The
    /// caller holds the directory's ``DirectoryLock`` and ``LevelDBFileLock``.
    static func remove(_ path: String, root: String) throws(ModelStoreError) {
        try DatabaseTrash.delete(path, root: root)
    }

    static func lastErrorMessage() -> String {
        String(cString: strerror(errno))
    }
}

/// Closes a file descriptor (a free function, so types with their own `close()` can call it).
@inline(__always)
func closeDescriptor(_ fd: Int32) -> Int32 {
    close(fd)
}

/// An exclusive `flock(2)` on a database's marker file.
///
/// ModelStore takes it before LevelDB opens the database and keeps it until LevelDB has
/// closed, so a second process (or a second open in this process through another spelling
/// of the path) is refused with ``ModelStoreError/locked(path:message:)`` before LevelDB is
/// ever called. Repair and delete take the same lock.
final class DirectoryLock: Sendable {
    private let descriptor: Locked<Int32?>

    init(directory: String) throws(ModelStoreError) {
        let fd = open(directory + "/" + StoreDirectory.markerName, O_RDWR | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ELOOP { throw .notAModelStore(path: directory) }
            throw .io(path: directory, message: "cannot open the ModelStore marker: \(StoreDirectory.lastErrorMessage())")
        }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let code = errno
            _ = closeDescriptor(fd)
            if code == EWOULDBLOCK {
                throw .locked(path: directory, message: "the database is open in another process")
            }
            throw .io(path: directory, message: "cannot lock the database: \(String(cString: strerror(code)))")
        }
        descriptor = Locked(fd)
    }

    /// Releases the lock. Safe to call more than once.
    func unlock() {
        descriptor.withLock { fd in
            if let open = fd {
                // Unlock explicitly before closing: a child process this process is spawning
                // holds a copy of the descriptor until its exec, and the flock would otherwise
                // outlive our close and make the next open here fail with `locked`.
                _ = flock(open, LOCK_UN)
                _ = closeDescriptor(open)
            }
            fd = nil
        }
    }

    deinit {
        unlock()
    }
}
