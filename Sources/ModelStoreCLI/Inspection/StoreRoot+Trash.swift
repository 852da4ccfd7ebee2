import Foundation

extension StoreRoot {
    /// The status `list` shows for a deletion a crash interrupted.
    static let pendingDeletionStatus = "deleting"

    /// The `.modelstore-trash-*` folders under the root, sorted: deletions that a crash
    /// interrupted. Only real folders count (a symbolic link with that name is not
    /// ModelStore's). The library finishes them on the next delete, delete-all or open.
    func pendingDeletions() -> [String] {
        guard exists, let entries = try? FileManager.default.contentsOfDirectory(atPath: path) else { return [] }
        return entries.filter { name in
            guard name.hasPrefix(Self.trashPrefix) else { return false }
            let attributes = try? FileManager.default.attributesOfItem(atPath: url.appendingPathComponent(name).path)
            return attributes?[.type] as? FileAttributeType == .typeDirectory
        }.sorted()
    }
}
