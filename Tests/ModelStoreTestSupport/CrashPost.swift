import Foundation
public import ModelStore

/// The indexed model of the index crash tests: the helper writes it and defines its indexes,
/// and the tests reopen the database and check the entries against the records.
public struct CrashPost: Codable, Equatable, Sendable {
    public var author: String
    public var tags: [String]
    public var score: Int64
    public var op: Int

    public init(op: Int, random: inout SeededGenerator) {
        self.op = op
        author = ["ada", "bob", "carol", "dan"].randomElement(using: &random)!
        tags = ["a", "b", "c"].filter { _ in Bool.random(using: &random) }
        score = Int64.random(in: -100...100, using: &random)
    }

    /// The indexes, by name, and the values each gives a post.
    public static let indexes: [(name: String, values: @Sendable (CrashPost) -> [IndexValue])] = [
        ("byAuthor", { [.string($0.author)] }),
        ("byTag", { $0.tags.map { .string($0) } }),
        ("byScore", { [.int($0.score)] }),
    ]

    /// Defines the indexes on `writer` (version 1), reporting each build's progress to `progress`.
    @discardableResult
    public static func defineIndexes(
        on writer: some ModelWriter, progress: ((ModelStore.IndexBuildProgress) -> Void)? = nil
    ) throws -> [ModelStore.IndexBuildReport] {
        try indexes.map { index in
            try writer.defineIndex(index.name, of: CrashPost.self, version: 1, progress: progress) { index.values($0) }
        }
    }
}
