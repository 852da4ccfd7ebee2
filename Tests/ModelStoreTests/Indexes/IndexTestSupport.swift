import Foundation
@testable import ModelStore

/// The model the index tests index.
struct Post: Codable, Equatable, Hashable, Sendable {
    var author: String
    var createdAt: Date
    var tags: [String] = []
    var score: Int64 = 0
}

/// A model that decodes as a ``Post`` too (its fields and one more).
struct RichPost: Codable, Equatable, Sendable {
    var author: String
    var createdAt: Date
    var tags: [String]
    var score: Int64
    var body: String
}

/// The indexes the tests define on a collection of posts.
enum PostIndexes {
    static func define(on writer: some ModelWriter, version: Int = 1) throws {
        try writer.defineIndex("byAuthor", of: Post.self, version: version) { [.string($0.author)] }
        try writer.defineIndex("byTime", of: Post.self, version: version) { [.date($0.createdAt)] }
        try writer.defineIndex("byTag", of: Post.self, version: version) { $0.tags.map { .string($0) } }
        try writer.defineIndex("byScore", of: Post.self, version: version) { [.int($0.score)] }
    }
}

extension ModelStore {
    /// The physical keys of every index entry (`0xFF 0x11`) and reverse entry (`0xFF 0x12`).
    func rawIndexKeys() throws -> (entries: Int, reverse: Int) {
        let keys = try rawKeys()
        let entries = keys.filter { $0.starts(with: [KeySpace.systemMarker, IndexKeys.entryKind]) }.count
        let reverse = keys.filter { $0.starts(with: [KeySpace.systemMarker, IndexKeys.reverseKind]) }.count
        return (entries, reverse)
    }
}

struct IndexerFailure: Error, CustomStringConvertible {
    var description: String { "the indexer refused" }
}
