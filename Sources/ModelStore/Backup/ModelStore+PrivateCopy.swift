public import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// The `modelstore` tool's read-only commands read a private copy of a database instead of the
// database itself: opening it would change its files (LevelDB writes a new log and MANIFEST and
// rotates its LOG at every open), and another process may hold it. Not API.

@_spi(Inspection)
extension ModelStore {
    /// Makes `<root>/<name>`, a private copy of the database folder `source` that opens as a
    /// database: the marker, copies of CURRENT, the MANIFEST and the logs, and hard links to
    /// the tables (copies where the file system cannot link). Consistent even while another
    /// process writes to `source` (see `DatabaseFileCopy`); nothing in `source` is written.
    ///
    /// - Returns: How many rounds the copy took (1 when nothing changed meanwhile).
    public static func _makePrivateCopy(ofDatabaseAt source: URL, named name: String, in root: URL) throws -> Int {
        let path = source.path
        guard StoreDirectory.kind(of: path) == .database else { throw ModelStoreError.notAModelStore(path: path) }
        // A repair or reset a crash interrupted left LevelDB's files half-changed: its journal,
        // not these files, says what the database holds, and only finishing it (which writes)
        // shows that. A copy of the files alone would show a wrong state as if it were right.
        for journal in [RepairJournal.journalName, DatabaseResetter.journalName] {
            var info = stat()
            if lstat(path + "/" + journal, &info) == 0 {
                let root = source.deletingLastPathComponent().path
                let command = ToolCommand("repair", [name], options: [.init("root", root)])
                throw ModelStoreError.corrupted(
                    path: path,
                    message: "an interrupted \(journal == RepairJournal.journalName ? "repair" : "reset") is pending "
                        + "(\(journal)), so the files alone do not show what the database holds; finish it with "
                        + "`\(command)` or by opening the database in its program, then inspect it")
            }
        }
        let copy = root.path + "/" + name
        guard mkdir(copy, 0o700) == 0 else {
            let reason = StoreDirectory.lastErrorMessage()
            throw ModelStoreError.io(path: copy, message: "cannot create a private copy: \(reason)")
        }
        try StoreDirectory.writeMarker(in: copy)
        return try DatabaseFileCopy.copy(from: path, to: copy, linkingTables: true).rounds
    }

    /// The process that holds LevelDB's lock on the database folder `url` (another ModelStore
    /// or any LevelDB client), found without taking the lock or writing anything; nil when no
    /// other process holds it.
    public static func _processHoldingDatabase(at url: URL) -> Int32? {
        let fd = open(url.path + "/LOCK", O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { _ = closeDescriptor(fd) }
        var request = flock()
        request.l_type = Int16(F_WRLCK)
        request.l_whence = Int16(SEEK_SET)
        request.l_start = 0
        request.l_len = 0
        guard fcntl(fd, F_GETLK, &request) == 0, request.l_type != Int16(F_UNLCK) else { return nil }
        return request.l_pid
    }
}
