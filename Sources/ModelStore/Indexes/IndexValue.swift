public import Foundation

/// One value an index holds for a record: what an indexer returns and what queries ask for.
///
/// ```swift
/// try posts.defineIndex("byAuthor", of: Post.self, version: 1) { post in [.string(post.author)] }
/// let mine = try posts.entries(Post.self, where: "byAuthor", equals: .string("ada")).collect()
/// ```
///
/// Values are ordered the way an index stores them, by their encoded bytes (see
/// ``IndexValue`` encoding in the README's "On disk"):
/// - within a kind, naturally: numbers and dates numerically, negative before positive
///   (`-0.0` is `0.0`; every NaN is one value, after `+infinity`), `false` before `true`, and
///   strings by their UTF-8 bytes: "é" (U+00E9) and "e" followed by U+0301 are two values, as
///   they are two keys;
/// - across kinds, by kind, in a fixed order: bool, int, double, date, string. An `.int(2)` and
///   a `.double(2)` are two values; index a number as one kind.
///
/// Equality and hashing follow the same bytes, so `==`, `<` and `hash(into:)` always agree.
public enum IndexValue: Sendable, Hashable, Comparable, CustomStringConvertible {
    case string(String)
    case int(Int64)
    case double(Double)
    case date(Date)
    case bool(Bool)

    /// Whether two values are the same index value: the same kind and the same encoded bytes.
    public static func == (lhs: IndexValue, rhs: IndexValue) -> Bool {
        lhs.encoded == rhs.encoded
    }

    /// Whether `lhs` comes before `rhs` in an index.
    public static func < (lhs: IndexValue, rhs: IndexValue) -> Bool {
        lhs.encoded.lexicographicallyPrecedes(rhs.encoded)
    }

    /// Hashes the encoded bytes, as ``==(_:_:)`` compares them.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(encoded)
    }

    /// The value as the `modelstore` tool prints it: `"ada"`, `42`, `2.5`, a date in ISO 8601, `true`.
    public var description: String {
        switch self {
        case .string(let string): return string.debugDescription
        case .int(let int): return String(int)
        case .double(let double): return String(IndexValue.canonical(double))
        case .date(let date): return date.formatted(.iso8601)
        case .bool(let bool): return String(bool)
        }
    }
}
