/// The keys the codec makes up itself: array indices in coding paths, and `super` for `superEncoder()`.
///
/// One word holding the index, or -1 for `super`: a plain value of eight bytes, so putting one on the coding path
/// stores its bytes (see ``BinaryCodingPath``) and fits in an existential's inline buffer, never allocating.
struct BinaryCodingKey: CodingKey {
    private let index: Int

    /// The key of the element at `index` of an unkeyed container.
    static func index(_ index: Int) -> BinaryCodingKey {
        BinaryCodingKey(index: index)
    }

    /// The key `superEncoder()` and `superDecoder()` use, as JSONEncoder does.
    static let superKey = BinaryCodingKey(index: -1)

    private init(index: Int) {
        self.index = index
    }

    init?(stringValue: String) {
        guard stringValue == "super" else { return nil }
        self = .superKey
    }

    init?(intValue: Int) {
        guard intValue >= 0 else { return nil }
        self.index = intValue
    }

    var stringValue: String {
        index >= 0 ? "Index \(index)" : "super"
    }

    var intValue: Int? {
        index >= 0 ? index : nil
    }
}
