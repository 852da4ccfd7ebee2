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
    /// How many index entries (`0xFF 0x11`) the database holds, and how many records' old
    /// values it keeps: values entries (`0xFF 0x13`) and reverse entries of format-1
    /// definitions (`0xFF 0x12`).
    func rawIndexKeys() throws -> (entries: Int, reverse: Int) {
        let keys = try rawKeys()
        let entries = keys.filter { $0.starts(with: [KeySpace.systemMarker, IndexKeys.entryKind]) }.count
        let reverse = keys.filter {
            $0.starts(with: [KeySpace.systemMarker, IndexKeys.reverseKind])
                || $0.starts(with: [KeySpace.systemMarker, IndexKeys.valuesKind])
        }.count
        return (entries, reverse)
    }

    /// Every values entry (`0xFF 0x13`), by key: each index id's encodings, in stored order.
    func rawValuesEntries() throws -> [[UInt8]: [UInt32: [[UInt8]]]] {
        let iterator = try database.run { engine in try engine.makeIterator(snapshot: nil) }
        try database.run { _ in try iterator.seek(to: IndexKeys.allValues.lowerBound) }
        var found: [[UInt8]: [UInt32: [[UInt8]]]] = [:]
        while let (key, parts) = try database.run({ _ in
            try iterator.withCurrent { key, value -> ([UInt8], [UInt32: [[UInt8]]])? in
                guard !IndexKeys.allValues.isPastEnd(key, reverse: false) else { return nil }
                var parts: [UInt32: [[UInt8]]] = [:]
                let entry = ValuesEntry(value)
                for (id, _) in entry.parts {
                    let part = entry.part(id, in: value)!
                    var encodings: [[UInt8]] = []
                    var offset = 0
                    while offset < part.count, let length = IndexValue.encodedLength(in: part, at: offset) {
                        encodings.append(Array(part[offset..<(offset + length)]))
                        offset += length
                    }
                    parts[id] = encodings
                }
                return (Array(key), parts)
            } ?? nil
        }) {
            found[key] = parts
            try database.run { _ in try iterator.next() }
        }
        return found
    }
}

struct IndexerFailure: Error, CustomStringConvertible {
    var description: String { "the indexer refused" }
}
