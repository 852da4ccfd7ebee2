// MARK: - Definition records
//
// What the database knows of one index, under 0xFF 0x10 (IndexKeys.swift):
//
//   format               1 byte: 2; 1 for definitions written before values entries, whose
//                        index kept one reverse entry per record (`defineIndex` rebuilds those)
//   state                1 byte: 0 building, 1 built, 2 dropped (its entries being cleared)
//   id                   4 bytes big-endian: the index's entries and reverse entries
//   version              8 bytes big-endian two's complement: the caller's version
//   resume key           LEB128 length, then the user key a build goes on from (building)
//   retired ids          LEB128 count, then 4 bytes each: earlier versions' entries to clear
//   indexed, skipped     LEB128 each: records the build indexed, and skipped (not the type)
//   type                 LEB128 length, then the model type's name, for tools
//   checksum             4 bytes: CRC-32C of the key, then the value bytes before it, little-endian
//
// A build writes its chunk's entries and the definition's new resume key in one atomic batch,
// so a build killed at any point goes on from its last chunk at the next `defineIndex`.

/// One index's definition record.
struct IndexDefinition: Equatable {
    enum State: UInt8 {
        /// Entries are being built from the stored records; queries refuse.
        case building = 0
        /// Every record is indexed; queries answer.
        case built = 1
        /// ``IndexDefinition/dropIndex`` began: no current index, entries of `retired` being cleared.
        case dropped = 2
    }

    /// The format new definitions are written in: their index's old values are in the records'
    /// values entries (`0xFF 0x13`).
    static let format: UInt8 = 2
    /// Definitions of this format kept one reverse entry per index and record (`0xFF 0x12`).
    static let reverseEntriesFormat: UInt8 = 1

    /// The format the definition was written in, and is written back in.
    var format: UInt8 = Self.format
    var state: State
    var id: UInt32
    var version: Int
    /// The user key (UTF-8) a build goes on from.
    var resumeKey: [UInt8] = []
    /// Ids whose entries are still to be cleared.
    var retired: [UInt32] = []
    var indexed = 0
    var skipped = 0
    var typeName: String

    /// The stored bytes of the definition under `key`.
    func value(key: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = [format, state.rawValue]
        bytes += IndexKeys.idBytes(id)
        let version = UInt64(bitPattern: Int64(version))
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: version >> UInt64(shift))) }
        LEB128.append(resumeKey.count, to: &bytes)
        bytes += resumeKey
        LEB128.append(retired.count, to: &bytes)
        for id in retired { bytes += IndexKeys.idBytes(id) }
        LEB128.append(indexed, to: &bytes)
        LEB128.append(skipped, to: &bytes)
        LEB128.append(typeName.utf8.count, to: &bytes)
        bytes += typeName.utf8
        let crc = key.withUnsafeBytes { key in bytes.withUnsafeBytes { CRC32C.checksum($0, continuing: CRC32C.checksum(key)) } }
        for shift in stride(from: 0, through: 24, by: 8) { bytes.append(UInt8(truncatingIfNeeded: crc >> UInt32(shift))) }
        return bytes
    }

    /// What a stored value holds; nil for one that fails its checksum or is in an unknown format.
    init?(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) {
        guard value.count >= 4 + 14, value[0] == Self.format || value[0] == Self.reverseEntriesFormat else { return nil }
        format = value[0]
        let body = UnsafeRawBufferPointer(rebasing: value[..<(value.count - 4)])
        let stored = UInt32(littleEndian: value.loadUnaligned(fromByteOffset: value.count - 4, as: UInt32.self))
        guard stored == CRC32C.checksum(body, continuing: CRC32C.checksum(key)), let state = State(rawValue: value[1])
        else { return nil }
        func big(_ offset: Int, _ count: Int) -> UInt64 {
            (0..<count).reduce(UInt64(0)) { $0 << 8 | UInt64(body[offset + $1]) }
        }
        self.state = state
        id = UInt32(big(2, 4))
        version = Int(Int64(bitPattern: big(6, 8)))
        var offset = 14
        guard let resumeLength = LEB128.read(body, at: &offset), offset + resumeLength <= body.count else { return nil }
        resumeKey = Array(body[offset..<(offset + resumeLength)])
        offset += resumeLength
        guard let retiredCount = LEB128.read(body, at: &offset), offset + 4 * retiredCount <= body.count else {
            return nil
        }
        retired = (0..<retiredCount).map { UInt32(big(offset + 4 * $0, 4)) }
        offset += 4 * retiredCount
        // Counts of records, not of bytes that follow: read as plain numbers.
        guard let indexed = LEB128.readIdentifier(body, at: &offset), let skipped = LEB128.readIdentifier(body, at: &offset),
            let typeLength = LEB128.read(body, at: &offset), offset + typeLength == body.count
        else { return nil }
        self.indexed = Int(truncatingIfNeeded: indexed)
        self.skipped = Int(truncatingIfNeeded: skipped)
        typeName = String(decoding: UnsafeRawBufferPointer(rebasing: body[offset...]), as: UTF8.self)
    }

    init(state: State, id: UInt32, version: Int, typeName: String) {
        self.state = state
        self.id = id
        self.version = version
        self.typeName = typeName
    }

    /// The definition stored under `key`, nil for none; a damaged one is ``ModelStoreError/corrupted(path:message:)``.
    static func read(key: [UInt8], from engine: LevelDB, snapshot: LevelDBSnapshot? = nil, path: String) throws -> IndexDefinition? {
        try key.withUnsafeBytes { keyBytes in
            try engine.withValue(forKey: keyBytes, snapshot: snapshot) { value -> IndexDefinition? in
                guard let value else { return nil }
                guard let definition = IndexDefinition(key: keyBytes, value: value) else {
                    throw ModelStoreError.corrupted(
                        path: path,
                        message: "an index definition fails its checksum or was written by a newer ModelStore; "
                            + "drop the index with dropIndex(_:) and define it again")
                }
                return definition
            }
        }
    }
}
