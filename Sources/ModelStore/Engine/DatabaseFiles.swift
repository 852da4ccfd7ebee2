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

    /// Deletes LevelDB's files in `directory` (a ModelStore database whose lock the caller
    /// holds) and returns their names. ModelStore's marker and any file LevelDB did not
    /// create stay; symbolic links are removed, never followed.
    static func removeLevelDBFiles(in directory: String) throws(ModelStoreError) -> [String] {
        var removed: [String] = []
        for name in names(in: directory) {
            let path = directory + "/" + name
            switch kind(ofName: name) {
            case .other:
                continue
            case .lostDirectory:
                var info = stat()
                guard lstat(path, &info) == 0 else { continue }
                if info.st_mode & S_IFMT == S_IFDIR {
                    do {
                        try FileManager.default.removeItem(atPath: path)  // does not follow links inside
                    } catch {
                        throw .io(
                            path: path, message: "cannot delete LevelDB's lost files: \(error.localizedDescription)")
                    }
                } else if unlink(path) != 0 {
                    throw .io(path: path, message: "cannot delete: \(StoreDirectory.lastErrorMessage())")
                }
            default:
                guard unlink(path) == 0 || errno == ENOENT else {
                    throw .io(path: path, message: "cannot delete: \(StoreDirectory.lastErrorMessage())")
                }
            }
            removed.append(name)
        }
        return removed
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
