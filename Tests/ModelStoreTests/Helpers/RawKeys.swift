import Foundation
@testable import ModelStore

extension ModelStore {
    /// Every physical LevelDB key of the database, in LevelDB's order: what the key layout
    /// really wrote, read past every ModelStore API. The policy records every open writes
    /// (`0xFF 0x03`) are left out unless asked for.
    func rawKeys(includingPolicyRecords: Bool = false) throws -> [[UInt8]] {
        let iterator = try database.run { engine in try engine.makeIterator(snapshot: nil) }
        try database.run { _ in try iterator.seekToFirst() }
        var keys: [[UInt8]] = []
        while let key = try database.run({ _ in try iterator.withCurrent { key, _ in Array(key) } }) {
            if includingPolicyRecords || !key.starts(with: [KeySpace.systemMarker, StoredPolicies.kind]) {
                keys.append(key)
            }
            try database.run { _ in try iterator.next() }
        }
        return keys
    }
}
