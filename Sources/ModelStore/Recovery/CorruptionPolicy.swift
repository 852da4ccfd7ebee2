/// What ModelStore does when LevelDB reports that a database is damaged as it opens.
///
/// Set it per configuration; the default is ``fail``:
///
/// ```swift
/// var configuration = ModelStore.Configuration()
/// configuration.corruptionPolicy = .reset   // a cache we can rebuild from the network
/// let store = try ModelStore(name: "thumbnails", policy: .middle, configuration: configuration)
/// ```
///
/// Only damage triggers the policy: LevelDB's `Corruption:` status at open, or a
/// directory whose `CURRENT` file is missing while logs or tables remain. A lock held by
/// another process, a missing permission, a full disk or any other I/O error is thrown as
/// it is and never causes a repair or a deletion. Whatever the policy chooses is logged
/// through ``ModelStore/Configuration/logger``.
public enum CorruptionPolicy: Sendable, Hashable {
    /// Throw ``ModelStoreError/corrupted(path:message:)`` with LevelDB's message and leave
    /// the files as they are, so you can call ``ModelStore/repair(named:in:)-82t4e``, copy
    /// them away, or delete the database. The default.
    case fail

    /// Repair the database as ``ModelStore/repair(named:in:)-82t4e`` does, then open it.
    /// Records in damaged parts of the files are lost; no damaged record is brought back with
    /// wrong contents. If the repaired database still does not open, throws
    /// ``ModelStoreError/corrupted(path:message:)``.
    case repair

    /// Delete the database's LevelDB files and start empty. Meant for caches whose contents
    /// can be rebuilt. Only LevelDB's own files inside the database's marked directory are
    /// deleted; other files there, and everything outside it, are left alone.
    case reset
}

extension CorruptionPolicy: CustomStringConvertible {
    /// The case's name, as it appears in ModelStore's log metadata.
    public var description: String {
        switch self {
        case .fail: return "fail"
        case .repair: return "repair"
        case .reset: return "reset"
        }
    }
}
