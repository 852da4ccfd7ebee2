/// The keys the decoder makes up itself: array indices in coding paths, and `super` for `superDecoder()`.
///
/// They read as Foundation's do (`"Index 3"` with intValue 3, and `"super"`), and an enum with an `Int` payload fits
/// in an existential's inline buffer, so recording one on the coding path never allocates.
enum JSONCodingKey: CodingKey {
    case index(Int)
    case superKey

    init?(stringValue: String) {
        guard stringValue == "super" else { return nil }
        self = .superKey
    }

    init?(intValue: Int) {
        self = .index(intValue)
    }

    var stringValue: String {
        switch self {
        case .index(let index): return "Index \(index)"
        case .superKey: return "super"
        }
    }

    var intValue: Int? {
        switch self {
        case .index(let index): return index
        case .superKey: return nil
        }
    }
}
