import ModelStore

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

    /// Why ModelStore would refuse `name`, or nil if it is a valid name.
    ///
    /// ModelStore's own check at open, so the tool and the library never disagree; the tool
    /// asks before it looks at the file system, since `..` or `a/b` would otherwise lead to a
    /// folder outside the root.
    static func invalidReason(_ name: String) -> String? {
        do {
            try DatabaseName.validate(name)
            return nil
        } catch {
            if case let .invalidName(_, reason) = error { return reason }
            return error.description
        }
    }
}
