#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// LevelDB's own lock on a database: a write lock on `<db>/LOCK`, the lock every LevelDB
/// client (ModelStore, plyvel, a C program, LevelDB's tools) takes while it has the database
/// open.
///
/// ModelStore's marker `flock` (``DirectoryLock``) only keeps other ModelStore processes out.
/// A repair or a delete also takes this lock before it touches any file, so a database that
/// some other LevelDB client holds is refused with ``ModelStoreError/locked(path:message:)``
/// instead of being rewritten or deleted under it.
///
/// ## Record-lock semantics, and why this is an open-file-description lock on Linux
///
/// LevelDB takes a classic POSIX record lock (`fcntl(F_SETLK)`). Such a lock belongs to the
/// process, not to the descriptor: closing *any* descriptor of `LOCK` in the process drops it,
/// and a second lock request from the same process always succeeds. On Linux this type takes
/// an open-file-description lock (`F_OFD_SETLK`) instead. It conflicts with LevelDB's classic
/// lock in another process *and* in this one, and only closing our own descriptor drops it.
/// Consequently the lock must be released before LevelDB opens the same database in this
/// process (a repair opens it to count the records): LevelDB would see our lock and report
/// the database as locked. ``DatabaseRepairer`` releases it right before that open; nothing
/// changes files after that point. Elsewhere (no OFD locks) this falls back to `F_SETLK`,
/// where the same ordering is also correct: LevelDB's unlock at close would drop ours anyway.
final class LevelDBFileLock {
    private var descriptor: Int32?

    /// Creates `<directory>/LOCK` if needed, as LevelDB does, and locks it without waiting.
    ///
    /// - Throws: ``ModelStoreError/locked(path:message:)`` if another LevelDB client holds it;
    ///   ``ModelStoreError/io(path:message:)`` if it cannot be opened.
    init(directory: String) throws(ModelStoreError) {
        let fd = open(directory + "/LOCK", O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw .io(path: directory, message: "cannot open LevelDB's LOCK file: \(StoreDirectory.lastErrorMessage())")
        }
        var request = flock()
        request.l_type = Int16(F_WRLCK)
        request.l_whence = Int16(SEEK_SET)
        request.l_start = 0
        request.l_len = 0  // the whole file, as LevelDB locks it
        var result = fcntl(fd, Self.setLockCommand, &request)
        if result != 0 && errno == EINVAL && Self.setLockCommand != F_SETLK {
            result = fcntl(fd, F_SETLK, &request)  // a kernel without OFD locks
        }
        guard result == 0 else {
            let code = errno
            _ = closeDescriptor(fd)
            if code == EAGAIN || code == EACCES {
                throw .locked(path: directory, message: "another program holds LevelDB's LOCK on the database")
            }
            throw .io(path: directory, message: "cannot lock LevelDB's LOCK file: \(String(cString: strerror(code)))")
        }
        descriptor = fd
    }

    #if os(Linux)
    /// `F_OFD_SETLK` (Linux 3.15+; not exported by Swift's Glibc module).
    private static let setLockCommand: Int32 = 37
    #else
    private static let setLockCommand: Int32 = F_SETLK
    #endif

    /// Releases the lock, then closes our descriptor. Safe to call more than once.
    ///
    /// Unlocked explicitly, not by the close alone: an open-file-description lock lives as
    /// long as any descriptor of that description, and a child another thread forks keeps a
    /// copy until it `exec`s (`O_CLOEXEC` closes it only then). A close alone left the lock
    /// held in that window, and the repair's own LevelDB open right after found the database
    /// "in use by another process".
    func release() {
        guard let fd = descriptor else { return }
        descriptor = nil
        var request = flock()
        request.l_type = Int16(F_UNLCK)
        request.l_whence = Int16(SEEK_SET)
        request.l_start = 0
        request.l_len = 0
        if fcntl(fd, Self.setLockCommand, &request) != 0 && errno == EINVAL {
            _ = fcntl(fd, F_SETLK, &request)  // locked with F_SETLK on a kernel without OFD locks
        }
        _ = closeDescriptor(fd)
    }

    deinit {
        release()
    }
}
