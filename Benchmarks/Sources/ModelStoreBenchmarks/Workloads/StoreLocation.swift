import Foundation

/// How the workloads open, compact and delete one contender's databases.
struct StoreFactory<Store: BenchmarkStore> {
    /// Opens (creating) the database at a location (a directory, or a file for SQLite).
    var open: (String) throws -> Store
    /// Fully compacts the closed database at a location.
    var compact: (String) throws -> Void
}

/// Deletes a database location and everything under it (a SQLite database's `-wal` and
/// `-shm` files too).
func removeLocation(_ location: String) {
    let fileManager = FileManager.default
    for path in [location, location + "-wal", location + "-shm"] where fileManager.fileExists(atPath: path) {
        try? fileManager.removeItem(atPath: path)
    }
}

/// The bytes of the regular files directly inside a database directory.
func directoryByteCount(_ location: String) -> Int {
    let fileManager = FileManager.default
    let names = (try? fileManager.contentsOfDirectory(atPath: location)) ?? []
    return names.reduce(0) { total, name in
        let attributes = try? fileManager.attributesOfItem(atPath: location + "/" + name)
        return total + ((attributes?[.size] as? NSNumber)?.intValue ?? 0)
    }
}

/// The file a worker's standard workloads write the compacted database's size into.
let diskBytesFileName = "disk-bytes"

/// The bytes a database at `location` takes: every regular file under it (a LevelDB directory,
/// or a ModelStore root with its database folder inside), or SQLite's `location.sqlite` and WAL.
func storedByteCount(_ location: String) -> Int {
    let fileManager = FileManager.default
    func size(_ path: String) -> Int {
        let attributes = try? fileManager.attributesOfItem(atPath: path)
        guard attributes?[.type] as? FileAttributeType == .typeRegular else { return 0 }
        return (attributes?[.size] as? NSNumber)?.intValue ?? 0
    }
    let files = (fileManager.subpaths(atPath: location) ?? []).reduce(0) { $0 + size(location + "/" + $1) }
    return files + size(location + ".sqlite") + size(location + ".sqlite-wal")
}
