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
//     .modelstore-new-<uuid>/        a database being created: built here with its marker,
//                                    then renamed to <name> in one step (StoreDirectory+Creation);
//                                    one a crash left is removed later (UnfinishedCreations)
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

    /// Returns the root's canonical path (no symbolic links, `.` or `..`), creating missing
    /// directories when `create` is true; nil when it does not exist and `create` is false.
    ///
    /// The path is resolved the way the file system resolves it, whether or not it exists yet:
    /// one component at a time, each existing prefix through `realpath(3)`, so `..` after a
    /// symbolic link goes to the parent of the link's target, and each missing component is
    /// created under its resolved parent. (`standardizedFileURL` removes `..` lexically, which
    /// would put a missing root somewhere else than the same path finds once it exists.)
    /// Differently spelled paths to one directory give one string.
    static func canonicalRoot(_ url: URL, create: Bool) throws(ModelStoreError) -> String? {
        let path = url.path
        try requireDirectory(atOrAbove: path)
        var resolved = "/"
        for component in path.split(separator: "/", omittingEmptySubsequences: true) {
            switch component {
            case ".":
                continue
            case "..":
                // `resolved` has no links left, so its lexical parent is its physical parent.
                resolved = parent(of: resolved)
            default:
                let candidate = (resolved == "/" ? "" : resolved) + "/" + component
                if let real = realPath(candidate) {
                    resolved = real
                    continue
                }
                guard errno == ENOENT else {
                    throw .io(path: path, message: "cannot resolve the root directory: \(lastErrorMessage())")
                }
                guard create else { return nil }
                if mkdir(candidate, 0o777) != 0 && errno != EEXIST {
                    throw .io(path: path, message: "cannot create the root directory: \(lastErrorMessage())")
                }
                guard let real = realPath(candidate) else {
                    throw .io(path: path, message: "cannot resolve the root directory: \(lastErrorMessage())")
                }
                resolved = real
            }
        }
        var info = stat()
        guard stat(resolved, &info) == 0 else {
            throw .io(path: path, message: "cannot read the root directory: \(lastErrorMessage())")
        }
        guard info.st_mode & S_IFMT == S_IFDIR else { throw .notADirectory(path: resolved) }
        // A root inside which ModelStore's marker sits is a database folder: databases made in it
        // would be deleted with it (this happens when an older version's shared default
        // directory held a database named like the program, now the program's own root).
        var marker = stat()
        // (A database may itself be named ".modelstore": its folder is not a marker.)
        if lstat(resolved + "/" + markerName, &marker) == 0, marker.st_mode & S_IFMT == S_IFREG {
            throw .rootIsADatabase(path: resolved)
        }
        return resolved
    }

    /// `realpath(3)` as a String, or nil with `errno` set.
    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    private static func parent(of path: String) -> String {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")), slash != path.utf8.startIndex else { return "/" }
        return String(path[..<slash])
    }

    /// The identity of the marker in the database directory `path`, without following links;
    /// nil if there is none.
    static func markerIdentity(of path: String) -> FileIdentity? {
        var info = stat()
        guard lstat(path + "/" + markerName, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        return FileIdentity(info)
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

    /// Makes sure `path` (a folder directly in `root`) is a database directory of ours,
    /// creating it if it is missing.
    ///
    /// A folder ModelStore did not create, even an empty one, a file or a symbolic link is
    /// refused with ``ModelStoreError/notAModelStore(path:)``. A missing one is built under a
    /// temporary name with its marker and renamed into place, so other processes see either
    /// no folder or a complete database, never an empty folder; when two processes create the
    /// same name at once, one rename wins and the other uses its database.
    static func prepare(_ path: String, root: String) throws(ModelStoreError) {
        for _ in 0..<3 {
            switch kind(of: path) {
            case .database:
                return
            case .foreign:
                throw .notAModelStore(path: path)
            case .missing:
                if try create(path, root: root) { return }
                // Lost a race: the name appeared (or vanished again); classify it afresh.
            }
        }
        throw .io(path: path, message: "the database directory kept appearing and vanishing while it was created")
    }

    static func writeMarker(in directory: String) throws(ModelStoreError) {
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

    /// The marker file's identity, read from the locked descriptor: it names the database
    /// directory this lock belongs to, however the path to it is spelled.
    let identity: FileIdentity

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
                throw .locked(path: directory, message: "its \(StoreDirectory.markerName) marker is locked")
            }
            throw .io(path: directory, message: "cannot lock the database: \(String(cString: strerror(code)))")
        }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let code = errno
            _ = flock(fd, LOCK_UN)
            _ = closeDescriptor(fd)
            throw .io(path: directory, message: "cannot read the ModelStore marker: \(String(cString: strerror(code)))")
        }
        identity = FileIdentity(info)
        descriptor = Locked(fd)
    }

    /// Whether the marker still has a name in the file system. False once the database's
    /// directory was deleted under us (a cache cleaner's `rm -rf`): LevelDB's files are then
    /// unlinked too, and anything written to them is lost when the database closes. One
    /// fstat(2) of the descriptor this lock already holds, cheap enough for every write.
    /// True once the lock is released (the engine is closed then and says so itself).
    func markerIsLinked() -> Bool {
        descriptor.withLock { fd in
            guard let fd else { return true }
            var info = stat()
            guard fstat(fd, &info) == 0 else { return true }
            return info.st_nlink > 0
        }
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
