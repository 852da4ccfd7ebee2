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
        // Each record's section, by the key of its values entry: the indexes it describes.
        var sections: [[UInt8]: [UInt32: Set<[UInt8]>]] = [:]
        for physical in raw where physical.first.map({ $0 < KeySpace.systemMarker }) ?? false {
            guard let (space, _) = physical.withUnsafeBytes({ KeySpace.split($0) }),
                let section = try rawSection(physical)
            else { continue }
            physical.withUnsafeBytes { physical in
                let userKey = UnsafeRawBufferPointer(rebasing: physical[space.prefix.count...])
                sections[IndexKeys.valuesKey(in: space, userKey: userKey)] = section.mapValues { Set($0) }
            }
        }
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
        // A record's values in an index are its section's part when it has one, else its values
        // entry's part (none: no values). A values entry never holds a part its record's section
        // describes, nor outlives its record.
        let expectedIDs = Set(expected.compactMap { database.indexes.index(named: $0.name, in: $0.space)?.id })
        let rawEntries = try rawValuesEntries()
        let foundValues = rawEntries.mapValues { $0.filter { expectedIDs.contains($0.key) }.mapValues { Set($0) } }
        for (key, entryParts) in rawEntries {
            let described = Set(sections[key]?.keys.map { $0 } ?? []).intersection(entryParts.keys)
            if !described.isEmpty { problems.append("values entry \(key) holds parts its record describes: \(described.sorted())") }
        }
        for id in expectedIDs {
            for key in Set(values.keys).union(foundValues.keys).union(sections.keys) {
                let expectedPart = values[key]?[id] ?? []
                let found = sections[key]?[id] ?? foundValues[key]?[id] ?? []
                if expectedPart != found {
                    problems.append("record of \(key), index \(id): expected \(expectedPart), found \(found)")
                }
            }
        }
        return problems
    }
}
