/// Why a value could not be read as the requested type.
///
/// Containers turn these into `DecodingError`s and mark the decode call as one that Foundation must redo (see
/// ``JSONDecodingState/fail(_:_:codingPath:)``), so their wording never reaches users of ``JSONModelCodec``.
enum JSONValueError: Error {
    /// The value is of another JSON type.
    case typeMismatch(found: JSONKind)
    /// The value is null where a value is required.
    case valueNotFound
    /// A number that does not fit the requested type; Foundation rejects it too.
    case notRepresentable
    /// A string that is not what the type needs (not base64 for `Data`, not a URL for `URL`).
    case invalid
    /// An input whose exact treatment this decoder leaves to Foundation rather than approximate.
    case needsFoundation
}

extension JSONKind {
    /// How Foundation's messages name the kind.
    var debugDescription: String {
        switch self {
        case .null: return "null"
        case .true, .false: return "bool"
        case .number: return "number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "a dictionary"
        }
    }
}
