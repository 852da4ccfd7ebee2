import Foundation

/// The root directory the tool works in, and what is inside it, read from the file system
/// only (nothing here opens LevelDB or creates anything).
///
/// It follows ModelStore's documented layout: one folder per database, each holding a
/// `.modelstore` marker file, and `.modelstore-trash-*` folders for deletions in progress.
struct StoreRoot {
    /// The marker file that makes a folder a ModelStore database.
    static let markerName = ".modelstore"
    /// The prefix of folders ModelStore is in the middle of deleting.
    static let trashPrefix = ".modelstore-trash-"
    /// The prefix of folders in which ModelStore builds a new database before renaming it.
    static let creationPrefix = ".modelstore-new-"

    /// The root directory.
    let url: URL

    /// The root as the user will recognise it in messages.
    var path: String { url.path }

    /// Whether the root directory exists.
    var exists: Bool {
        (try? FileManager.default.attributesOfItem(atPath: path)[.type] as? FileAttributeType) == .typeDirectory
    }

    /// The database folder for `name` (whether or not it exists).
    func directory(of name: String) -> URL {
        url.appendingPathComponent(name, isDirectory: true)
    }

    /// Whether `name` is a ModelStore database here: a real folder (not a symbolic link)
    /// holding the marker file. Names that could point outside the root are never databases.
    func isDatabase(_ name: String) -> Bool {
        // Prefixes compared as bytes, as ModelStore does (`hasPrefix` on String compares by
        // canonical equivalence).
        guard !name.isEmpty, name != ".", name != "..", !name.contains("/"),
            !name.utf8.starts(with: Self.trashPrefix.utf8), !name.utf8.starts(with: Self.creationPrefix.utf8)
        else {
            return false
        }
        let folder = directory(of: name).path
        return Self.type(of: folder) == .typeDirectory
            && Self.type(of: folder + "/" + Self.markerName) == .typeRegular
    }

    /// The names of the databases under the root, sorted; other entries are skipped.
    func databaseNames() throws -> [String] {
        guard exists else { return [] }
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

    /// The type of the item at `path`, not following a symbolic link (`attributesOfItem`
    /// uses lstat).
    private static func type(of path: String) -> FileAttributeType? {
        (try? FileManager.default.attributesOfItem(atPath: path))?[.type] as? FileAttributeType
    }
}
