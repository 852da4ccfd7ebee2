/// Checks database names before anything touches the disk.
enum DatabaseName {
    /// The longest name accepted, in UTF-8 bytes.
    static let maximumLength = 200

    /// Throws ``ModelStoreError/invalidName(name:reason:)`` unless `name` maps to exactly one
    /// directory directly inside the root.
    static func validate(_ name: String) throws(ModelStoreError) {
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
        if name.hasPrefix(StoreDirectory.trashPrefix) { throw reject("the name is reserved by ModelStore") }
    }
}
