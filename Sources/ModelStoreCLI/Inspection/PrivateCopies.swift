import Foundation
@_spi(Inspection) import ModelStore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The private copies the read-only commands read instead of the databases themselves.
///
/// Opening a database, even only to read it, changes its files (LevelDB starts a new log and
/// MANIFEST and renames LOG to LOG.old), and a database another process holds cannot be opened
/// at all. So `list`, `stats`, `keys`, `collections`, `get` and `dump` read a copy: hard links
/// of LevelDB's table files (which LevelDB never changes) and copies of the small files that
/// change (CURRENT, the MANIFEST, the logs), retried until they form a consistent set, made in
/// a folder `.modelstore-inspect-<pid>-<uuid>` of the root (the same file system, so the links
/// work; the system's temporary folder when the root cannot be written). The copy is opened
/// and recovered there like a database after a crash, and removed when the command ends. When
/// another process holds the database, a note on standard error says that a copy was read.
///
/// A copy left by a killed `modelstore` (its process id is gone) is removed by the next one.
enum PrivateCopies {
    static let prefix = ".modelstore-inspect-"

    /// Copies made by this process: the database's root and name to the copy's root.
    private nonisolated(unsafe) static var copies: [String: URL] = [:]
    /// The folders this process created to hold copies.
    private nonisolated(unsafe) static var folders: [URL] = []
    private static let lock = NSLock()

    /// The root that holds this process's private copy of database `name` of `root`, making the
    /// copy the first time it is asked for.
    static func root(for name: String, in root: StoreRoot) throws -> URL {
        lock.lock()
        defer { lock.unlock() }
        let key = root.path + "\u{0}" + name
        if let existing = copies[key] { return existing }
        let folder = try makeFolder(near: root)
        let source = root.directory(of: name)
        let holder = ModelStore._processHoldingDatabase(at: source)
        _ = try ModelStore._makePrivateCopy(ofDatabaseAt: source, named: name, in: folder)
        if let holder {
            Terminal.printError(
                "note: \(name) is open in another process (pid \(holder)); showing a private copy made at "
                    + "\(Self.time()) (later changes are not shown; the copy is removed when the command ends)")
        }
        copies[key] = folder
        return folder
    }

    /// Removes every copy this process made. Called when the command ends, after its stores
    /// are released.
    static func removeAll() {
        lock.lock()
        defer { lock.unlock() }
        for folder in folders { try? FileManager.default.removeItem(at: folder) }
        folders.removeAll()
        copies.removeAll()
    }

    /// Replaces the paths of copies in `text` with the paths of the databases they copy, so
    /// messages (and the commands they advise) name the real database.
    static func unmask(_ text: String) -> String {
        lock.lock()
        defer { lock.unlock() }
        var text = text
        for (key, folder) in copies {
            let root = String(key.prefix { $0 != "\u{0}" })
            text = text.replacingOccurrences(of: folder.path, with: root)
        }
        return text
    }

    private static func makeFolder(near root: StoreRoot) throws -> URL {
        removeAbandoned(in: root.url)
        let name = prefix + "\(getpid())-" + UUID().uuidString
        var lastError = ""
        for parent in [root.url, FileManager.default.temporaryDirectory] {
            let folder = parent.appendingPathComponent(name, isDirectory: true)
            if mkdir(folder.path, 0o700) == 0 {
                folders.append(folder)
                return folder
            }
            lastError = String(cString: strerror(errno))
        }
        throw CommandFailure(status: .failure, message: "cannot make a private copy to read: \(lastError)")
    }

    /// Removes copies in `root` (and the temporary folder) whose `modelstore` process is gone.
    private static func removeAbandoned(in root: URL) {
        for parent in [root, FileManager.default.temporaryDirectory] {
            for entry in (try? FileManager.default.contentsOfDirectory(atPath: parent.path)) ?? []
            where entry.hasPrefix(prefix) {
                let pid = entry.dropFirst(prefix.count).prefix { $0 != "-" }
                guard let pid = Int32(pid), pid != getpid(), kill(pid, 0) != 0, errno == ESRCH else { continue }
                // A database may bear such a name (it is a valid one): a private copy's folder
                // holds a database, and is never one itself. Nor is it anything but a folder.
                let folder = parent.appendingPathComponent(entry).path
                var info = stat()
                guard lstat(folder, &info) == 0, info.st_mode & S_IFMT == S_IFDIR,
                    lstat(folder + "/" + StoreRoot.markerName, &info) != 0
                else { continue }
                try? FileManager.default.removeItem(atPath: folder)
            }
        }
    }

    private static func time() -> String {
        let formatter = DateFormatter()
        formatter.dateFormat = "HH:mm:ss"
        return formatter.string(from: Date())
    }
}
