import Foundation
@testable import ModelStore
import ModelStoreTestSupport

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
                guard value.first == IndexKeys.valuesFormat else { return (Array(key), [:]) }
                return (Array(key), Self.parts(UnsafeRawBufferPointer(rebasing: value[1...])))
            } ?? nil
        }) {
            found[key] = parts
            try database.run { _ in try iterator.next() }
        }
        return found
    }
}

extension ModelStore {
    /// Index parts (a values entry's after its format byte, or a record's section): each index
    /// id's encodings, in stored order.
    static func parts(_ bytes: UnsafeRawBufferPointer) -> [UInt32: [[UInt8]]] {
        var parts: [UInt32: [[UInt8]]] = [:]
        IndexParts.forEach(in: bytes) { id, part in
            var encodings: [[UInt8]] = []
            var offset = 0
            while offset < part.count, let length = IndexValue.encodedLength(in: part, at: offset) {
                encodings.append(Array(part[offset..<(offset + length)]))
                offset += length
            }
            parts[id] = encodings
            return true
        }
        return parts
    }

    /// Every record's values in the indexes, by the key of its values entry: for each index id,
    /// its section's part when it has one, else its values entry's part; indexes without values
    /// left out (and records with none).
    func rawIndexValues() throws -> [[UInt8]: [UInt32: [[UInt8]]]] {
        var found = try rawValuesEntries()
        for physical in try rawKeys() where physical.first.map({ $0 < KeySpace.systemMarker }) ?? false {
            guard let (space, _) = physical.withUnsafeBytes({ KeySpace.split($0) }), let section = try rawSection(physical)
            else { continue }
            let valuesKey = physical.withUnsafeBytes {
                IndexKeys.valuesKey(in: space, userKey: UnsafeRawBufferPointer(rebasing: $0[space.prefix.count...]))
            }
            for (id, encodings) in section { found[valuesKey, default: [:]][id] = encodings }
        }
        return found.mapValues { $0.filter { !$0.value.isEmpty } }.filter { !$0.value.isEmpty }
    }

    /// The index values section of the record at the physical key `key`, as parts; nil when the
    /// record is missing or has none.
    func rawSection(_ key: [UInt8]) throws -> [UInt32: [[UInt8]]]? {
        try database.run { engine in
            try key.withUnsafeBytes { keyBytes in
                try engine.withValue(forKey: keyBytes) { record in
                    record.flatMap { IndexParts.section(ofRecord: $0, verifiedUnder: keyBytes) }.map { Self.parts($0) }
                }
            }
        }
    }
}

extension Fixture {
    /// One run of a program on the database: opens it, calls `body` with the store and its
    /// "posts" collection (with ``PostIndexes`` defined, unless `definingIndexes` is false), and
    /// closes it.
    @discardableResult
    func runProgram<Result>(
        definingIndexes: Bool = true, _ body: (ModelStore, ModelStore.Collection) throws -> Result
    ) throws -> Result {
        let store = try open()
        let posts = store.collection("posts")
        if definingIndexes { try PostIndexes.define(on: posts) }
        let result = try body(store, posts)
        try store.close()
        return result
    }
}

struct IndexerFailure: Error, CustomStringConvertible {
    var description: String { "the indexer refused" }
}
