import Foundation
@testable import ModelStore

/// An index a test expects to be built and exact: the space it indexes, its name, and what it
/// computes from a stored record (nil: the record is not indexed by it).
struct ExpectedIndex {
    let space: KeySpace
    let name: String
    let values: (String) throws -> [IndexValue]?

    /// The index `name` of `collection`, computing `values` from each record read as a `Post`.
    static func posts(_ collection: ModelStore.Collection, _ name: String, _ values: @escaping (Post) -> [IndexValue]) -> Self {
        ExpectedIndex(space: collection.scope.space, name: name) { key in
            try collection.object(Post.self, forKey: key).map(values)
        }
    }

    /// The index `name` of the store's own keys.
    static func posts(_ store: ModelStore, _ name: String, _ values: @escaping (Post) -> [IndexValue]) -> Self {
        ExpectedIndex(space: store.scope.space, name: name) { key in try store.object(Post.self, forKey: key).map(values) }
    }
}

extension ModelStore {
    /// What is wrong with the index keys of the database, given that `expected` are exactly the
    /// indexes defined: each must be built; each live record's values are in it exactly once;
    /// no entry is left without its record, under another value, or under an id no expected
    /// index has (a cleared one); each values entry holds exactly its record's current parts in them;
    /// no reverse entry is left. Empty: nothing.
    func indexProblems(_ expected: [ExpectedIndex]) throws -> [String] {
        var problems: [String] = []
        let raw = try rawKeys()
        var entries = Set<[UInt8]>()
        var values: [[UInt8]: [UInt32: Set<[UInt8]>]] = [:]
        for index in expected {
            guard let defined = database.indexes.index(named: index.name, in: index.space) else {
                problems.append("\(index.name) is not defined")
                continue
            }
            if !defined.isBuilt { problems.append("\(index.name) is not built") }
            for physical in raw {
                guard let (space, key) = physical.withUnsafeBytes({ KeySpace.split($0) }), space == index.space,
                    let computed = try index.values(key)
                else { continue }
                var encodings = Set<[UInt8]>()
                for value in computed {
                    var encoding: [UInt8] = []
                    value.append(to: &encoding)
                    encodings.insert(encoding)
                }
                guard !encodings.isEmpty else { continue }
                physical.withUnsafeBytes { physical in
                    let userKey = UnsafeRawBufferPointer(rebasing: physical[space.prefix.count...])
                    for encoding in encodings {
                        entries.insert(IndexKeys.entryKey(defined.id, encoded: encoding, userKey: userKey))
                    }
                    values[IndexKeys.valuesKey(in: space, userKey: userKey), default: [:]][defined.id] = encodings
                }
            }
        }
        let foundEntries = Set(raw.filter { $0.starts(with: [KeySpace.systemMarker, IndexKeys.entryKind]) })
        for missing in entries.subtracting(foundEntries) { problems.append("missing entry \(missing)") }
        for extra in foundEntries.subtracting(entries) { problems.append("extra entry \(extra)") }
        if raw.contains(where: { $0.starts(with: [KeySpace.systemMarker, IndexKeys.reverseKind]) }) {
            problems.append("reverse entries are left")
        }
        // Parts of ids no expected index has are left to the records' next writes (a values
        // entry keeps only the parts of current ids): they are not judged here.
        let expectedIDs = Set(expected.compactMap { database.indexes.index(named: $0.name, in: $0.space)?.id })
        let foundValues = try rawValuesEntries().mapValues { $0.filter { expectedIDs.contains($0.key) }.mapValues { Set($0) } }
        for (key, parts) in values where foundValues[key] != parts {
            problems.append("values entry \(key): expected \(parts), found \(String(describing: foundValues[key]))")
        }
        for (key, parts) in foundValues where values[key] == nil && !parts.isEmpty {
            problems.append("values entry \(key) without expected values: \(parts)")
        }
        return problems
    }
}
