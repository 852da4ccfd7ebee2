// MARK: - Record format
//
// Every value ModelStore writes to LevelDB is a small envelope followed by the encoded model.
// The timestamps and the metadata live here, never in (or mutating) the user's model. Byte 0
// says which layout follows; a reader dispatches on it, so both versions live side by side in
// one database, record by record. New writes always use version 2; version 1 stays readable
// forever (a record is only rewritten as version 2 when it is written again).
//
// Version 1 (written until format 2 arrived):
//
//   offset  size  field
//   ------  ----  -----------------------------------------------------------------------
//        0     1  format version: 1
//        1     1  flags: bit 0 set = a per-record deadline follows storedAt; other bits 0
//        2     1  codec identifier (1 JSON, 2 property list, 3 binary, 128-255 custom)
//        3     8  storedAt: IEEE-754 Float64, little-endian, seconds since 2001-01-01 UTC
//                 (Date.timeIntervalSinceReferenceDate, so a Date round-trips exactly)
//       11     8  (only if flags bit 0) expiresAt: same encoding; this deadline wins over
//                 the store's update policy
//    11/19     …  payload: the model, as the codec encoded it
//
// Version 2:
//
//   offset  size  field
//   ------  ----  -----------------------------------------------------------------------
//        0     1  format version: 2
//        1     1  flags: bit 0 deadline follows; bit 1 metadata section; bit 2 tags section;
//                 bit 3 the payload is compressed; bits 4-7 zero (reserved). A record with an
//                 unknown bit set is refused (readers before bit 3 refuse compressed records).
//        2     1  payload codec identifier (as in version 1)
//        3     4  CRC-32C (Castagnoli), little-endian, of the full LevelDB key followed by
//                 value bytes 7...end: a damaged value, or a value found under another key,
//                 fails the check
//        7     8  storedAt (as in version 1)
//       15     8  (only if bit 0) expiresAt (as in version 1)
//        …     …  (only if bit 1) metadata: LEB128 length L (L >= 1), 1 byte codec
//                 identifier, L-1 bytes of metadata as that codec encoded it
//        …     …  (only if bit 2) tags: LEB128 count, then per tag a LEB128 length and the
//                 tag's UTF-8 bytes (reserved for tags; parsed and skipped today)
//        …     …  payload: the model, as its codec encoded it, to the end of the value; with
//                 bit 3, a LEB128 dictionary id (0: none; see RecordDictionaries.swift) and
//                 one Zstandard frame of the encoded model (with its content size and the
//                 dictionary's Zstandard id, without its own checksum), to the end of the value
//
// Reading an expiry never decodes the payload, so sweeps and counts cost only the header;
// they do not verify the checksum (they never hand a value out). Every read that returns
// a model or metadata verifies it first. LEB128 lengths are bounded by the bytes that are
// left, so a hostile length is refused before anything is allocated.

/// The parsed envelope of a stored record: everything but the payload.
struct RecordHeader: Equatable, Sendable {
    static let versionOne: UInt8 = 1
    static let versionTwo: UInt8 = 2
    static let hasDeadlineFlag: UInt8 = 0b0000_0001
    static let hasMetadataFlag: UInt8 = 0b0000_0010
    static let hasTagsFlag: UInt8 = 0b0000_0100
    static let compressedPayloadFlag: UInt8 = 0b0000_1000
    static let knownFlags: UInt8 = 0b0000_1111
    static let baseLengthV1 = 11
    static let baseLengthV2 = 15
    static let checksumOffset = 3
    /// Where the checksummed part of a version-2 value starts (after the checksum itself).
    static let checksummedFrom = 7
    static let deadlineLength = 8

    /// The format version, 1 or 2.
    var version: UInt8
    /// When the record was written, as seconds since the reference date.
    var storedAt: Double
    /// The record's own deadline, if it was written with one.
    var expiresAt: Double?
    /// The codec that encoded the payload.
    var codec: ModelCodecIdentifier
    /// Where the payload starts: the envelope's length.
    var length: Int
    /// Whether the payload is a dictionary id and a Zstandard frame (flag bit 3).
    var isPayloadCompressed = false
    /// The metadata section's codec, nil when the record has no metadata.
    var metadataCodec: ModelCodecIdentifier?
    /// Where the encoded metadata lies in the value (empty when there is none).
    var metadataRange: Range<Int> = 0..<0
    /// The tags section, count included (empty when there is none).
    var tagsRange: Range<Int> = 0..<0
    /// The stored checksum (version 2 only).
    var storedChecksum: UInt32?

    /// Parses the envelope at the start of `bytes`; nil if it is not a valid envelope of a
    /// version this reader knows (damaged, truncated, or with unknown flags).
    init?(parsing bytes: UnsafeRawBufferPointer) {
        guard bytes.count >= Self.baseLengthV1 else { return nil }
        switch bytes[0] {
        case Self.versionTwo: self.init(parsingVersionTwo: bytes)
        case Self.versionOne: self.init(parsingVersionOne: bytes)
        default: return nil
        }
    }

    private init?(parsingVersionOne bytes: UnsafeRawBufferPointer) {
        let flags = bytes[1]
        guard flags & ~Self.hasDeadlineFlag == 0 else { return nil }
        version = Self.versionOne
        codec = ModelCodecIdentifier(rawValue: bytes[2])
        storedAt = Self.readDouble(bytes, at: 3)
        guard storedAt.isFinite else { return nil }
        length = Self.baseLengthV1
        guard let deadline = Self.readDeadline(bytes, flags: flags, at: &length) else { return nil }
        expiresAt = deadline
    }

    private init?(parsingVersionTwo bytes: UnsafeRawBufferPointer) {
        guard bytes.count >= Self.baseLengthV2 else { return nil }
        let flags = bytes[1]
        guard flags & ~Self.knownFlags == 0 else { return nil }
        version = Self.versionTwo
        codec = ModelCodecIdentifier(rawValue: bytes[2])
        isPayloadCompressed = flags & Self.compressedPayloadFlag != 0
        storedChecksum = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: Self.checksumOffset, as: UInt32.self))
        storedAt = Self.readDouble(bytes, at: 7)
        guard storedAt.isFinite else { return nil }
        var offset = Self.baseLengthV2
        guard let deadline = Self.readDeadline(bytes, flags: flags, at: &offset) else { return nil }
        expiresAt = deadline
        if flags & Self.hasMetadataFlag != 0 {
            // At least the codec byte: an empty section would be a flag without content.
            guard let sectionLength = LEB128.read(bytes, at: &offset), sectionLength >= 1 else { return nil }
            metadataCodec = ModelCodecIdentifier(rawValue: bytes[offset])
            metadataRange = (offset + 1)..<(offset + sectionLength)
            offset += sectionLength
        }
        if flags & Self.hasTagsFlag != 0 {
            let start = offset
            guard let count = LEB128.read(bytes, at: &offset) else { return nil }
            // Each tag takes at least its length byte, so `count` is already bounded by the
            // bytes left: a hostile count fails on the first missing tag, without a long loop.
            for _ in 0..<count {
                guard let tagLength = LEB128.read(bytes, at: &offset) else { return nil }
                offset += tagLength
            }
            tagsRange = start..<offset
        }
        length = offset
    }

    /// Reads the deadline when `flags` say one follows at `offset`, and moves past it.
    /// Returns nil for a damaged one, `.some(nil)` when there is none.
    private static func readDeadline(
        _ bytes: UnsafeRawBufferPointer, flags: UInt8, at offset: inout Int
    ) -> Double?? {
        guard flags & hasDeadlineFlag != 0 else { return .some(nil) }
        guard bytes.count >= offset + deadlineLength else { return nil }
        let deadline = readDouble(bytes, at: offset)
        guard !deadline.isNaN else { return nil }
        offset += deadlineLength
        return .some(deadline)
    }

    init(storedAt: Double, expiresAt: Double?, codec: ModelCodecIdentifier) {
        self.version = Self.versionTwo
        self.storedAt = storedAt
        self.expiresAt = expiresAt
        self.codec = codec
        self.length = Self.baseLengthV2 + (expiresAt == nil ? 0 : Self.deadlineLength)
    }

    /// The moment the record stops being fresh under a policy lifetime of `timeToLive`
    /// seconds (nil: never), as seconds since the reference date.
    @inline(__always)
    func deadline(timeToLive: Double?) -> Double? {
        if let expiresAt { return expiresAt }
        guard let timeToLive else { return nil }
        return storedAt + timeToLive
    }

    /// Whether the record is expired at `now` (seconds since the reference date).
    @inline(__always)
    func isExpired(now: Double, timeToLive: Double?) -> Bool {
        guard let deadline = deadline(timeToLive: timeToLive) else { return false }
        return now >= deadline
    }

    static func readDouble(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> Double {
        let bits = bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
        return Double(bitPattern: UInt64(littleEndian: bits))
    }
}
