import Logging

// MARK: - The limits recorded for tools (system record FF 17)
//
// A store opened with a limit records its limits and eviction policy, so that `modelstore stats`
// can show how close the database is to them (the tool has no program's configuration). A normal
// open reads the record once and writes it only when it differs; a store without limits, and the
// tool, write nothing. ModelStore never reads it to decide anything: each store applies the
// limits it was opened with. The value is 23 bytes:
//
//   0      1  format version (1)
//   1      1  eviction: 0 oldestWritten, 1 leastRecentlyUsed
//   2      1  flags: bit 0 a byte limit follows, bit 1 a count limit follows
//   3      8  maximumTotalBytes, UInt64 little-endian (0 without bit 0)
//   11     8  maximumRecordCount, UInt64 little-endian (0 without bit 1)
//   19     4  CRC-32C of the key followed by value bytes 0...18, little-endian
//
// Releases from before this record ignore it (it sorts among the system records under 0xFF).

enum RecordedLimits {
    static let key: [UInt8] = [KeySpace.systemMarker, 0x17]
    static let formatVersion: UInt8 = 1
    static let valueLength = 23
    private static let checkedLength = 19

    /// Records `limits` unless the database already holds exactly them; failures are logged.
    static func record(_ limits: LimitEnforcer.Limits, in database: OpenDatabase, sync: Bool) {
        guard !limits.isEmpty else { return }
        do throws(ModelStoreError) {
            let stored = try database.run { try read(from: $0) }
            guard stored != limits else { return }
            try database.commitSystemRecord(key: key, value: value(of: limits), sync: sync)
        } catch {
            database.logger.warning(
                "The limits could not be recorded in the database; tools will not know them",
                metadata: ["database": "\(database.path)", "error": "\(error)"])
        }
    }

    /// The recorded limits, or nil when there are none or the record is damaged or from a newer format.
    static func read(from engine: LevelDB) throws -> LimitEnforcer.Limits? {
        try key.withUnsafeBytes { keyBytes in
            try engine.withValue(forKey: keyBytes) { value in
                guard let value else { return nil }
                return parse(key: keyBytes, value: value)
            }
        }
    }

    static func value(of limits: LimitEnforcer.Limits) -> [UInt8] {
        var value = [UInt8](repeating: 0, count: valueLength)
        value[0] = formatVersion
        value[1] = limits.eviction == .leastRecentlyUsed ? 1 : 0
        value[2] = (limits.maximumBytes != nil ? 1 : 0) | (limits.maximumCount != nil ? 2 : 0)
        let bytes = UInt64(limits.maximumBytes ?? 0)
        let count = UInt64(limits.maximumCount ?? 0)
        for index in 0..<8 {
            value[3 + index] = UInt8(truncatingIfNeeded: bytes >> (8 * UInt64(index)))
            value[11 + index] = UInt8(truncatingIfNeeded: count >> (8 * UInt64(index)))
        }
        let crc = key.withUnsafeBytes { key in value.withUnsafeBytes { checksum(key: key, value: $0) } }
        for index in 0..<4 { value[checkedLength + index] = UInt8(truncatingIfNeeded: crc >> (8 * UInt32(index))) }
        return value
    }

    static func parse(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) -> LimitEnforcer.Limits? {
        guard value.count == valueLength, value[0] == formatVersion, value[1] <= 1, value[2] & ~3 == 0,
            UInt32(littleEndian: value.loadUnaligned(fromByteOffset: checkedLength, as: UInt32.self))
                == checksum(key: key, value: value)
        else { return nil }
        let bytes = UInt64(littleEndian: value.loadUnaligned(fromByteOffset: 3, as: UInt64.self))
        let count = UInt64(littleEndian: value.loadUnaligned(fromByteOffset: 11, as: UInt64.self))
        guard bytes <= UInt64(Int.max), count <= UInt64(Int.max) else { return nil }
        return LimitEnforcer.Limits(
            maximumBytes: value[2] & 1 != 0 ? Int(bytes) : nil, maximumCount: value[2] & 2 != 0 ? Int(count) : nil,
            eviction: value[1] == 1 ? .leastRecentlyUsed : .oldestWritten)
    }

    private static func checksum(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) -> UInt32 {
        CRC32C.checksum(UnsafeRawBufferPointer(rebasing: value[..<checkedLength]), continuing: CRC32C.checksum(key))
    }
}
