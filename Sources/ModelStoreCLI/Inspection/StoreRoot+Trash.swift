@_spi(Inspection) import ModelStore

extension StoreRoot {
    /// The status `list` shows for a deletion a crash interrupted.
    static let pendingDeletionStatus = "deleting"

    /// The `.modelstore-trash-*` folders under the root, sorted: deletions that a crash
    /// interrupted. Only real folders count (a symbolic link with that name is not
    /// ModelStore's). The library finishes them on the next delete, delete-all or open; this
    /// asks the library's own rule, so the tool and the library never disagree on what is trash.
    func pendingDeletions() -> [String] {
        DatabaseTrash.pending(in: path)
    }

    /// The status `list` shows for a creation a crash interrupted (or one in progress).
    static let unfinishedCreationStatus = "creating"

    /// The `.modelstore-new-*` folders under the root, sorted: databases being created, or
    /// whose creation a crash interrupted. The library removes the interrupted ones on the next
    /// delete, delete-all or open; this asks the library's own rule, like ``pendingDeletions()``.
    func unfinishedCreations() -> [String] {
        UnfinishedCreations.pending(in: path)
    }
}
