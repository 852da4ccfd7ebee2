/// Checks database names before anything touches the disk.
///
/// A name is used as the folder's name byte for byte (its UTF-8, never normalised), and two
/// names are the same database only when the file system says they are one folder: on Linux
/// "café" in NFC and in NFD are two databases; on APFS, which ignores normalisation, they are
/// one database, whichever spelling opened it first.
package enum DatabaseName {
    /// The longest name accepted, in UTF-8 bytes.
    package static let maximumLength = 200

    /// Throws ``ModelStoreError/invalidName(name:reason:)`` unless `name` maps to exactly one
    /// directory directly inside the root.
    package static func validate(_ name: String) throws(ModelStoreError) {
        func reject(_ reason: String) -> ModelStoreError { .invalidName(name: name, reason: reason) }
        if name.isEmpty { throw reject("the name is empty") }
        if name == "." || name == ".." { throw reject("the name would refer to a directory outside the database") }
        if name.utf8.count > maximumLength {
            throw reject("the name is \(name.utf8.count) UTF-8 bytes; at most \(maximumLength) are allowed")
        }
        for scalar in name.unicodeScalars {
            switch scalar {
            case "/", "\\": throw reject("the name contains a path separator")
            case "\0": throw reject("the name contains a NUL character")
            default:
                if scalar.properties.generalCategory == .control {
                    throw reject("the name contains a control character")
                }
            }
        }
        // Byte prefixes: `hasPrefix` on String compares by canonical equivalence.
        for reserved in [StoreDirectory.trashPrefix, StoreDirectory.creationPrefix]
        where name.utf8.starts(with: reserved.utf8) {
            throw reject("names starting with \(reserved) are reserved for ModelStore's own folders")
        }
    }
}
