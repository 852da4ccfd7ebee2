import Foundation

/// The root directory the tool works in, and what is inside it, read from the file system
/// only (nothing here opens LevelDB or creates anything).
///
/// It follows ModelStore's documented layout: one folder per database, each holding a
/// `.modelstore` marker file, and `.modelstore-trash-*` folders for deletions in progress.
struct StoreRoot {
    /// The marker file that makes a folder a ModelStore database.
    static let markerName = ".modelstore"

    /// The root directory.
    let url: URL

    /// The root as the user will recognise it in messages.
    var path: String { url.path }

    /// The database folder for `name` (whether or not it exists).
    func directory(of name: String) -> URL {
        url.appendingPathComponent(name, isDirectory: true)
    }

    /// Whether `name` is a ModelStore database here: a real folder (not a symbolic link)
    /// holding the marker file. Names that could point outside the root are never databases.
    func isDatabase(_ name: String) -> Bool {
        if case .database = lookUp(name) { return true }
        return false
    }

    /// What `name` refers to under the root, so a command can say why it is not a database.
    func lookUp(_ name: String) -> NameLookup {
        // Checked before the file system: `a/b` or `..` must never reach a folder outside the root.
        if let reason = NameLookup.invalidReason(name) { return .invalidName(reason: reason) }
        let folder = directory(of: name).path
        switch Self.type(of: folder) {
        case nil:
            return .missing
        case .typeDirectory?:
            guard Self.type(of: folder + "/" + Self.markerName) == .typeRegular else {
                return .notADatabase("a folder without ModelStore's \(Self.markerName) marker")
            }
            return .database
        case .typeSymbolicLink?:
            return .notADatabase("a symbolic link")
        default:
            return .notADatabase("a file, not a folder")
        }
    }

    /// Fails unless the root is an existing directory, so a mistyped `--root` is reported
    /// instead of being shown as a root without databases.
    func requireDirectory() throws {
        switch Self.followedType(of: path) {
        case .typeDirectory?:
            return
        case nil:
            throw CommandFailure(
                status: .notFound,
                message: "no directory at \(path): no database has been created under this root. "
                    + "Check --root, or create a database there first.")
        default:
            throw CommandFailure(
                status: .usage,
                message: "\(path) is a file, not a directory of databases. Pass the directory with --root.")
        }
    }

    /// The names of the databases under the root, sorted; other entries are skipped.
    ///
    /// - Throws: ``CommandFailure`` when the root does not exist, is not a directory, or
    ///   cannot be listed.
    func databaseNames() throws -> [String] {
        try requireDirectory()
        let entries: [String]
        do {
            entries = try FileManager.default.contentsOfDirectory(atPath: path)
        } catch {
            throw CommandFailure(status: .failure, message: "cannot list \(path): \(error.localizedDescription)")
        }
        return entries.filter(isDatabase).sorted()
    }

    /// The bytes of the files in a database folder and how many files there are, without
    /// following symbolic links.
    func diskUsage(of name: String) -> (bytes: UInt64, files: Int) {
        var bytes: UInt64 = 0
        var files = 0
        var pending = [directory(of: name).path]
        while let folder = pending.popLast() {
            for entry in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] {
                let path = folder + "/" + entry
                guard let attributes = try? FileManager.default.attributesOfItem(atPath: path) else { continue }
                switch attributes[.type] as? FileAttributeType {
                case .typeRegular?:
                    bytes += (attributes[.size] as? NSNumber)?.uint64Value ?? 0
                    files += 1
                case .typeDirectory?:
                    pending.append(path)  // LevelDB's repair moves unusable files into `lost/`
                default:
                    break
                }
            }
        }
        return (bytes, files)
    }

    /// The type of the item at `path`, following symbolic links (a root may be a link).
    private static func followedType(of path: String) -> FileAttributeType? {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return nil }
        return isDirectory.boolValue ? .typeDirectory : .typeRegular
    }

    /// The type of the item at `path`, not following a symbolic link (`attributesOfItem`
    /// uses lstat).
    private static func type(of path: String) -> FileAttributeType? {
        (try? FileManager.default.attributesOfItem(atPath: path))?[.type] as? FileAttributeType
    }
}
