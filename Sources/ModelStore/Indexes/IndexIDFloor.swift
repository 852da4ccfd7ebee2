import Foundation

/// The highest id any index of the database was ever given (system record `FF 14`): a new
/// definition's id is above it, so an id is never given out twice in a database's life.
///
/// Records name index ids in their index values sections (RecordEnvelope.swift), and a section
/// outlives its index: a record written before a drop keeps the dropped index's part until it
/// is written again. A new index under that id would take the part as the record's values in it,
/// and queries would drop the record. Definitions alone cannot say which ids were given out
/// once their entries are cleared, so the highest one is kept here, written in the same batch
/// as the definition that takes a new id, and raised by every `defineIndex` of an index the
/// database held before this record existed.
///
/// The value is 9 bytes: format 1, the id (4 bytes big-endian), CRC-32C of the key and those 5
/// bytes (little-endian). A damaged record is rebuilt from the highest id any definition and any
/// record's section names (one walk over the records).
enum IndexIDFloor {
    static let key: [UInt8] = [KeySpace.systemMarker, IndexKeys.floorKind]
    static let format: UInt8 = 1

    /// What the database holds.
    enum Stored: Equatable {
        case absent
        case damaged
        case id(UInt32)
    }

    static func read(from engine: LevelDB) throws -> Stored {
        try key.withUnsafeBytes { key in
            try engine.withValue(forKey: key) { value -> Stored in
                guard let value else { return .absent }
                guard value.count == 9, value[0] == format,
                    UInt32(littleEndian: value.loadUnaligned(fromByteOffset: 5, as: UInt32.self))
                        == CRC32C.checksum(UnsafeRawBufferPointer(rebasing: value[..<5]), continuing: CRC32C.checksum(key))
                else { return .damaged }
                return .id(UInt32(value[1]) << 24 | UInt32(value[2]) << 16 | UInt32(value[3]) << 8 | UInt32(value[4]))
            }
        }
    }

    /// The record's value for `id`.
    static func value(_ id: UInt32) -> [UInt8] {
        var value = [format] + IndexKeys.idBytes(id)
        let crc = key.withUnsafeBytes { key in
            value.withUnsafeBytes { CRC32C.checksum($0, continuing: CRC32C.checksum(key)) }
        }
        withUnsafeBytes(of: crc.littleEndian) { value.append(contentsOf: $0) }
        return value
    }

    /// The highest id any record's index values section names: what a damaged record is rebuilt
    /// from (with the definitions'). One walk over every record of the database.
    static func highestIDInSections(of engine: LevelDB) throws -> UInt32 {
        var highest: UInt32 = 0
        let iterator = try engine.makeIterator(snapshot: nil, fillCache: false)
        try iterator.seek(to: [])
        while let next = try iterator.withCurrent({ key, value -> Bool in
            guard key.first.map({ $0 < KeySpace.systemMarker }) ?? false else { return false }
            if let section = IndexParts.section(ofRecord: value, verifiedUnder: key) {
                IndexParts.forEach(in: section) { id, _ in
                    highest = max(highest, id)
                    return true
                }
            }
            return true
        }), next {
            try iterator.next()
        }
        return highest
    }
}
