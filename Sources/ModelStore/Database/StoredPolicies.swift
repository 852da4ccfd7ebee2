import Foundation
import Logging

// MARK: - Policy records
//
// The policy a database was last opened with, and the one each collection was last given,
// are system records (see KeySpace), never returned by keys, counts, scans or sweeps, which
// all stop below 0xFF:
//
//   key:   0xFF, kind 0x03, then the key space's own prefix: nothing for the database's
//          policy (the key is FF 03), or 0xFE, the name's length and its UTF-8 bytes for a
//          collection's (FF 03 FE 05 "users")
//   value: 14 bytes
//          offset 0, 1 byte:  format (1)
//          offset 1, 1 byte:  the policy: 0 never, 1 lowest, 2 low, 3 middle, 4 high,
//                             5 highest, 6 custom
//          offset 2, 8 bytes: its lifetime in seconds, Float64 little-endian (0 for never; a
//                             preset's must be its own lifetime)
//          offset 10, 4 bytes: CRC-32C of the key followed by value bytes 0..<10, little-endian
//
// The first policy record of a key space is followed by a flush of LevelDB's memtable, so the
// record does not share a memtable (and the table made from it) with the user's records written
// after it: a new database's first table holds its policy record and nothing else.
//
// What it means: the policy of the latest open (or `collection(_:policy:)`) that recorded one,
// so that tools and other programs can default to it. ModelStore itself never reads it to
// judge expiry: each instance applies the policy it was opened with, as it always has.

/// What the policy record of one key space holds.
enum PolicyRecord: Equatable {
    /// No record: nothing recorded a policy yet (or a release from before policy records wrote
    /// the database).
    case absent
    case policy(UpdatePolicy)
    /// A record that fails its checksum, or that a newer release wrote in a format this one
    /// does not know; the reason says which.
    case unreadable(String)
}

/// The policy records of one open database, and what this process last read or wrote for each
/// key space, so that opening a store, or a collection with a policy, again costs no I/O.
final class StoredPolicies: @unchecked Sendable {
    // @unchecked: `known` is only touched under `lock`.

    /// The system record kind of a policy record, after 0xFF.
    static let kind: UInt8 = 0x03
    static let formatVersion: UInt8 = 1
    static let valueLength = 14
    private static let checkedLength = 10
    /// The keys of every policy record, the database's and each collection's: `[FF 03, FF 04)`.
    static let keyRange = (lowerBound: [KeySpace.systemMarker, kind], upperBound: [KeySpace.systemMarker, kind + 1])

    private let lock = Lock()
    /// What the database holds for each key space, by the space's prefix bytes (never by name
    /// as a `String`, whose equality is canonical equivalence: "é" and "e\u{301}" name two
    /// collections).
    private var known: [[UInt8]: UpdatePolicy] = [:]

    /// Records `policy` for `space` unless the database already holds it: a read the first
    /// time in this process, a write only when the policy differs, and nothing at all once
    /// this process knows the record holds it.
    ///
    /// Never throws: the record only informs tools, so an open does not fail for it. A failed
    /// write disables writes as any failed write does (see ``OpenDatabase/write(_:)``), and is
    /// logged once per open database.
    func record(_ policy: UpdatePolicy, for space: KeySpace, in database: OpenDatabase, sync: Bool) {
        lock.withLock {
            guard known[space.prefix] != policy else { return }
            let key = Self.key(for: space)
            do throws(ModelStoreError) {
                let stored = try database.run { try Self.read(key: key, from: $0) }
                if stored != .policy(policy) {
                    let value = Self.value(of: policy, key: key)
                    try database.commitSystemRecord(key: key, value: value, sync: sync)
                    // The first record of a key space (a new database's, a new collection's) goes
                    // into a table at once, before the user's writes that follow. Left in the
                    // memtable, the record (sorted after every user key) would make the first
                    // table span the whole key range, so LevelDB could no longer move the
                    // tables of later flushes down untouched: keys written in ascending order
                    // would pay merging compactions. (A new database's encryption marker,
                    // written just before at the same open, goes out with it.) A change of
                    // policy is rare and lands among records already stored: not flushed.
                    if stored == .absent { try database.run { try $0.flushMemtable() } }
                }
                known[space.prefix] = policy
            } catch {
                // Not tried again by this open database: a program that makes the collection
                // for every request must not log this every time. The next open tries again.
                known[space.prefix] = policy
                database.logger.warning(
                    "The policy could not be recorded in the database; tools will not know it",
                    metadata: [
                        "database": "\(database.path)", "collection": "\(space.collection ?? "-")",
                        "error": "\(error)",
                    ])
            }
        }
    }

    /// LevelDB's estimate of the bytes the keys in `[start, limit)` take on disk, without the
    /// tables that hold policy records and nothing else (a new database's first table, see
    /// ``record(_:for:in:sync:)``) when the range covers them: policy records are not records, and
    /// a database whose records are all still in the write buffer keeps an estimate of 0. A
    /// policy record that shares a table with records (a database created before, or one whose
    /// tables were compacted together) stays counted with them: LevelDB estimates by whole
    /// blocks, so leaving its range out would leave out the records of its block too.
    static func approximateSize(start: [UInt8], limit: [UInt8], in engine: LevelDB) throws -> UInt64 {
        let total = try engine.approximateSize(start: start, limit: limit)
        // From the first policy key to just past the recorded limits' (FF 17), which a new
        // database's first table may hold too.
        let (lower, upper) = (keyRange.lowerBound, [KeySpace.systemMarker, RecordedLimits.key[1] + 1])
        // Byte order, as LevelDB's comparator.
        guard total > 0, !lower.lexicographicallyPrecedes(start), !limit.lexicographicallyPrecedes(upper) else {
            return total
        }
        let policyTables = policyOnlyTableBytes(listing: try engine.property("leveldb.sstables") ?? "")
        return total - min(total, policyTables)
    }

    /// The bytes of the tables whose smallest and largest keys are both recorded settings' (a
    /// policy record, FF 03, or the recorded limits, FF 17), from LevelDB's `leveldb.sstables`
    /// listing: a line per table, ` 7:262['\xff\x03' @ 1 : 1 .. '\xff\x17' @ 2 : 1]` (its
    /// number, its size, its smallest and largest internal keys, bytes outside printable ASCII
    /// escaped as `\xNN`). Settings sort together after every user key, so such a table holds
    /// nothing else but other system records between them.
    static func policyOnlyTableBytes(listing: String) -> UInt64 {
        func isSetting(_ key: Substring) -> Bool { key.hasPrefix("'\\xff\\x03") || key.hasPrefix("'\\xff\\x17'") }
        var bytes: UInt64 = 0
        for line in listing.split(separator: "\n") where line.hasPrefix(" ") {
            guard let colon = line.firstIndex(of: ":"), let open = line.range(of: "["),
                let between = line.range(of: " .. ", range: open.upperBound..<line.endIndex),
                isSetting(line[open.upperBound...]), isSetting(line[between.upperBound...]),
                let size = UInt64(line[line.index(after: colon)..<open.lowerBound])
            else { continue }
            bytes += size
        }
        return bytes
    }

    // MARK: - Format

    /// The system key of `space`'s policy record.
    static func key(for space: KeySpace) -> [UInt8] {
        [KeySpace.systemMarker, kind] + space.prefix
    }

    /// The record stored under `key` in `engine`.
    static func read(key: [UInt8], from engine: LevelDB) throws -> PolicyRecord {
        try key.withUnsafeBytes { keyBytes in
            try engine.withValue(forKey: keyBytes) { value in
                guard let value else { return .absent }
                return parse(key: keyBytes, value: value)
            }
        }
    }

    /// The stored value of `policy` under `key`.
    static func value(of policy: UpdatePolicy, key: [UInt8]) -> [UInt8] {
        var value = [UInt8](repeating: 0, count: valueLength)
        value[0] = formatVersion
        value[1] = code(of: policy)
        let seconds = (policy.timeToLive ?? 0).bitPattern
        for index in 0..<8 { value[2 + index] = UInt8(truncatingIfNeeded: seconds >> (8 * UInt64(index))) }
        let crc = key.withUnsafeBytes { key in value.withUnsafeBytes { checksum(key: key, value: $0) } }
        for index in 0..<4 { value[checkedLength + index] = UInt8(truncatingIfNeeded: crc >> (8 * UInt32(index))) }
        return value
    }

    /// What a stored value holds.
    static func parse(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) -> PolicyRecord {
        guard value.count >= 1, value[0] == formatVersion else {
            return .unreadable("it is in a format this version of ModelStore does not know (written by a newer one?)")
        }
        guard value.count == valueLength,
            UInt32(littleEndian: value.loadUnaligned(fromByteOffset: checkedLength, as: UInt32.self))
                == checksum(key: key, value: value)
        else { return .unreadable("it fails its checksum: its bytes were damaged") }
        let seconds = Double(
            bitPattern: UInt64(littleEndian: value.loadUnaligned(fromByteOffset: 2, as: UInt64.self)))
        guard let policy = policy(code: value[1], seconds: seconds) else {
            return .unreadable("it names a policy this version of ModelStore does not know (written by a newer one?)")
        }
        return .policy(policy)
    }

    private static func code(of policy: UpdatePolicy) -> UInt8 {
        switch policy {
        case .never: return 0
        case .lowest: return 1
        case .low: return 2
        case .middle: return 3
        case .high: return 4
        case .highest: return 5
        case .custom: return 6
        }
    }

    /// The policy `code` names, if `seconds` is its lifetime (a valid one, for a custom policy).
    private static func policy(code: UInt8, seconds: Double) -> UpdatePolicy? {
        let policy: UpdatePolicy
        switch code {
        case 0: policy = .never
        case 1: policy = .lowest
        case 2: policy = .low
        case 3: policy = .middle
        case 4: policy = .high
        case 5: policy = .highest
        case 6:
            guard (try? UpdatePolicy.custom(seconds).validate()) != nil else { return nil }
            return .custom(seconds)
        default: return nil
        }
        return (policy.timeToLive ?? 0) == seconds ? policy : nil
    }

    private static func checksum(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) -> UInt32 {
        CRC32C.checksum(UnsafeRawBufferPointer(rebasing: value[..<checkedLength]), continuing: CRC32C.checksum(key))
    }
}
