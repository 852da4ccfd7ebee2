import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The files LevelDB keeps in a database directory, recognised by name the way LevelDB's
/// own `ParseFileName` does (filename.cc), so ModelStore can check, list and (for
/// ``CorruptionPolicy/reset``) delete them without touching anything else.
enum DatabaseFiles {
    /// What a name in a database directory is.
    enum Kind: Equatable {
        case current            // CURRENT: names the live MANIFEST
        case lock               // LOCK
        case infoLog            // LOG, LOG.old: LevelDB's diagnostics
        case manifest           // MANIFEST-<n>
        case writeAheadLog      // <n>.log
        case table              // <n>.ldb, <n>.sst
        case temporary          // <n>.dbtmp
        case lostDirectory      // lost/: where repair archives files it could not use
        case other              // ModelStore's marker, or anything LevelDB did not create
    }

    static func kind(ofName name: String) -> Kind {
        switch name {
        case "CURRENT": return .current
        case "LOCK": return .lock
        case "LOG", "LOG.old": return .infoLog
        case "lost": return .lostDirectory
        default: break
        }
        if name.hasPrefix("MANIFEST-"), isNumber(name.dropFirst("MANIFEST-".count)) { return .manifest }
        guard let dot = name.lastIndex(of: "."), isNumber(name[..<dot]) else { return .other }
        switch name[name.index(after: dot)...] {
        case "log": return .writeAheadLog
        case "ldb", "sst": return .table
        case "dbtmp": return .temporary
        default: return .other
        }
    }

    private static func isNumber(_ text: Substring) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }

    /// The sorted names of the entries in `directory` (empty if it cannot be listed).
    static func names(in directory: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted()
    }

    /// The sorted names of the entries in `directory`; throws where ``names(in:)`` would
    /// return an empty list, for steps that must not mistake "cannot list" for "empty".
    static func listing(of directory: String) throws(FileFailure) -> [String] {
        do {
            return try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
        } catch {
            throw FileFailure(path: directory, message: "cannot list the directory: \(error.localizedDescription)")
        }
    }

    // MARK: - Checks before an open

    /// Refuses a database whose `CURRENT` file is missing while it still has logs or tables.
    ///
    /// LevelDB (with `create_if_missing`) would treat such a directory as new: it writes a
    /// fresh MANIFEST, replays only the newest log and then deletes every table as obsolete,
    /// silently losing the data. Reporting it as damage lets the corruption policy decide
    /// (repair can rebuild `CURRENT` from the tables).
    static func checkCurrentFile(in directory: String) throws(LevelDBFailure) {
        let names = names(in: directory)
        guard !names.contains("CURRENT") else { return }
        let data = names.filter { [.writeAheadLog, .table].contains(kind(ofName: $0)) }
        guard !data.isEmpty else { return }  // a new database, or one whose creation was interrupted
        let files = data.joined(separator: ", ")
        throw LevelDBFailure(message: "Corruption: CURRENT file is missing but the database has data files (\(files))")
    }

    // MARK: - Reset

    /// Deletes LevelDB's files in `directory` (a ModelStore database whose marker lock and
    /// LevelDB `LOCK` the caller holds) and returns their names. ModelStore's marker, `LOCK`
    /// (the caller's lock is on it; removing it would let another client lock a new one) and
    /// any file LevelDB did not create stay; symbolic links are removed, never followed.
    ///
    /// `CURRENT` goes first: a reset killed half-way then leaves either a directory whose
    /// data files have no `CURRENT` (every later open reports it as damage, and the policy
    /// decides again) or no data at all, never a database that opens with part of its data.
    static func removeLevelDBFiles(in directory: String) throws(FileFailure) -> [String] {
        var removed: [String] = []
        let order: [Kind] = [.current, .manifest, .writeAheadLog, .table, .temporary, .infoLog, .lostDirectory]
        let names = try listing(of: directory)
        for kind in order {
            for name in names where self.kind(ofName: name) == kind {
                try remove(name, kind: kind, in: directory)
                removed.append(name)
            }
            if kind == .current {
                try syncDirectory(directory)
                CrashPoint.resetStarted.reached()
            }
        }
        try syncDirectory(directory)
        return removed.sorted()
    }

    private static func remove(_ name: String, kind: Kind, in directory: String) throws(FileFailure) {
        let path = directory + "/" + name
        if kind == .lostDirectory {
            var info = stat()
            guard lstat(path, &info) == 0 else { return }
            if info.st_mode & S_IFMT == S_IFDIR {
                do {
                    try FileManager.default.removeItem(atPath: path)  // does not follow links inside
                } catch {
                    throw FileFailure(path: path, message: "cannot delete LevelDB's lost files: \(error.localizedDescription)")
                }
                return
            }
        }
        guard unlink(path) == 0 || errno == ENOENT else {
            throw FileFailure(path: path, message: "cannot delete: \(systemErrorMessage())")
        }
    }

    // MARK: - LevelDB's own log

    /// The messages in LevelDB's diagnostic `LOG`, without the timestamp and thread id that
    /// start each line.
    static func infoLogMessages(in directory: String) -> [String] {
        guard let text = try? String(contentsOfFile: directory + "/LOG", encoding: .utf8) else { return [] }
        return text.split(separator: "\n").map { line in
            // "2026/11/21-16:06:44.209252 140146077841216 Log #8: 100 ops saved to Table #9 OK"
            let parts = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
            guard parts.count == 3, parts[0].contains("/"), parts[1].allSatisfy(\.isHexDigit) else {
                return String(line)
            }
            return String(parts[2])
        }
    }
}

// MARK: - Durability of renames and unlinks

extension DatabaseFiles {
    /// Flushes `directory`'s entries (created, renamed and removed names) to disk, so a step
    /// of a multi-step operation is durable before the next one starts.
    static func syncDirectory(_ directory: String) throws(FileFailure) {
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else {
            throw FileFailure(
                path: directory, message: "cannot open the directory to flush it: \(systemErrorMessage())")
        }
        defer { _ = closeDescriptor(fd) }
        guard fsync(fd) == 0 else {
            throw FileFailure(path: directory, message: "cannot flush the directory: \(systemErrorMessage())")
        }
    }

    /// Flushes LevelDB's files in `directory`, and the directory, to disk. LevelDB's repair
    /// closes its new MANIFEST and repaired tables without flushing them; a repair's journal
    /// must not be removed before they are durable. Files with nothing unwritten cost little.
    static func syncLevelDBFiles(in directory: String) throws(FileFailure) {
        for name in try listing(of: directory) {
            switch kind(ofName: name) {
            case .current, .manifest, .writeAheadLog, .table:
                let path = directory + "/" + name
                let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
                guard fd >= 0 else {
                    throw FileFailure(path: path, message: "cannot open to flush: \(systemErrorMessage())")
                }
                defer { _ = closeDescriptor(fd) }
                guard fsync(fd) == 0 else {
                    throw FileFailure(path: path, message: "cannot flush: \(systemErrorMessage())")
                }
            default:
                continue
            }
        }
        try syncDirectory(directory)
        var info = stat()
        if lstat(directory + "/lost", &info) == 0 && info.st_mode & S_IFMT == S_IFDIR {
            try syncDirectory(directory + "/lost")
        }
    }

    /// Writes `bytes` to a new file at `path` and flushes it.
    static func writeSynced(_ bytes: [UInt8], to path: String) throws(FileFailure) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw FileFailure(path: path, message: "cannot create: \(systemErrorMessage())") }
        defer { _ = closeDescriptor(fd) }
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + written, $0.count - written) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                throw FileFailure(path: path, message: "cannot write: \(systemErrorMessage())")
            }
            written += count
        }
        guard fsync(fd) == 0 else {
            throw FileFailure(path: path, message: "cannot flush: \(systemErrorMessage())")
        }
    }
}
