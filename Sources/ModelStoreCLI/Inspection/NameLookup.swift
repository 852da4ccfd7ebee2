/// What a database name given on the command line refers to under the root.
///
/// Commands that take a NAME tell these apart so the message fits the mistake: a name that
/// can never be a database is a usage error, a name with nothing behind it is "not found",
/// and a folder ModelStore did not create is left alone and named as such.
enum NameLookup: Equatable {
    /// A ModelStore database.
    case database
    /// A name ModelStore never accepts (`reason` says why); nothing on disk was looked at.
    case invalidName(reason: String)
    /// Nothing of that name under the root.
    case missing
    /// Something that is not a ModelStore database: `what` describes it.
    case notADatabase(String)

    /// The longest name ModelStore accepts, in UTF-8 bytes.
    static let maximumLength = 200

    /// Why ModelStore would refuse `name`, or nil if it is a valid name.
    ///
    /// The same rules as ModelStore's own check at open (which is not public): the tool must
    /// refuse these names before it looks at the file system, since `..` or `a/b` would
    /// otherwise lead to a folder outside the root.
    static func invalidReason(_ name: String) -> String? {
        if name.isEmpty { return "the name is empty" }
        if name == "." || name == ".." { return "the name would refer to a directory outside the root" }
        if name.utf8.count > maximumLength {
            return "the name is \(name.utf8.count) UTF-8 bytes; at most \(maximumLength) are allowed"
        }
        for scalar in name.unicodeScalars {
            if scalar == "/" || scalar == "\\" { return "the name contains a path separator" }
            if scalar == "\0" { return "the name contains a NUL character" }
            if scalar.properties.generalCategory == .control { return "the name contains a control character" }
        }
        if name.hasPrefix(StoreRoot.trashPrefix) { return "names starting with \(StoreRoot.trashPrefix) are reserved" }
        return nil
    }
}
