/// Writing version-3 envelopes (the layout is at the top of RecordEnvelope.swift).
///
/// A record is assembled in three steps into one buffer:
/// ``RecordHeader/writeVersionThree(to:hasMetadata:hasTags:isCompressed:)`` puts the fixed part
/// (checksum left zero), the metadata and tags sections are appended, then the payload, and
/// ``RecordHeader/seal(_:key:)`` computes the checksum once the bytes are final.
extension RecordHeader {
    /// Appends the fixed part of a version-3 envelope (version, flags, codec, a zero checksum,
    /// storedAt, the deadline) to `buffer`, with the flags for the sections that will follow
    /// (and for a compressed payload, when a rewrite copies one).
    func writeVersionThree(
        to buffer: inout [UInt8], hasMetadata: Bool, hasTags: Bool, isCompressed: Bool = false, hasIndexValues: Bool = false
    ) {
        // Assembled on the stack and appended in one go: every put writes one, and one append
        // is one capacity check and one copy instead of six.
        var packed: (UInt64, UInt64, UInt64) = (0, 0, 0)
        let length = Self.baseLengthV2 + (expiresAt == nil ? 0 : Self.deadlineLength)
        withUnsafeMutableBytes(of: &packed) { bytes in
            var flags: UInt8 = expiresAt == nil ? 0 : Self.hasDeadlineFlag
            if neverExpires { flags |= Self.neverExpiresFlag }
            if hasMetadata { flags |= Self.hasMetadataFlag }
            if hasTags { flags |= Self.hasTagsFlag }
            if isCompressed { flags |= Self.compressedPayloadFlag }
            if hasIndexValues { flags |= Self.indexValuesFlag }
            bytes[0] = Self.versionThree
            bytes[1] = flags
            bytes[2] = codec.rawValue
            bytes.storeBytes(of: storedAt.bitPattern.littleEndian, toByteOffset: 7, as: UInt64.self)
            if let expiresAt {
                bytes.storeBytes(
                    of: expiresAt.bitPattern.littleEndian, toByteOffset: Self.baseLengthV2, as: UInt64.self)
            }
            buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[..<length]))
        }
    }

    /// Appends a metadata section whose encoded bytes are already known.
    static func appendMetadataSection(
        codec: ModelCodecIdentifier, bytes: UnsafeRawBufferPointer, to buffer: inout [UInt8]
    ) {
        LEB128.append(bytes.count + 1, to: &buffer)
        buffer.append(codec.rawValue)
        buffer.append(contentsOf: bytes)
    }

    /// Appends a metadata section by encoding `metadata` with `codec` straight into `buffer`.
    ///
    /// Generic so that the caller's `any Codable & Sendable` is opened, not converted: turning it
    /// into another existential (`any Encodable`) copies a value larger than three words (two
    /// Strings) into a new heap box, one allocation per record. The store's write paths keep the
    /// public API's existential type all the way here for the same reason.
    static func appendMetadataSection<Metadata: Encodable>(
        encoding metadata: Metadata, with codec: any ModelCodec, to buffer: inout [UInt8]
    ) throws {
        let lengthAt = beginMetadataSection(codec: codec.identifier, in: &buffer)
        do {
            try codec.encode(metadata, appendingTo: &buffer)
        } catch {
            buffer.removeSubrange(lengthAt...)
            throw error
        }
        finishMetadataSection(lengthAt: lengthAt, end: buffer.count, in: &buffer)
    }

    /// Appends the start of a metadata section whose encoded metadata comes next, and returns
    /// where its length goes (pass it to ``finishMetadataSection(lengthAt:end:in:)``).
    ///
    /// The length comes first but is only known after encoding, so one byte is reserved (enough
    /// for sections up to 127 bytes, the common case of an ETag or a date) and the encoded
    /// bytes are moved only when a longer length needs more room. No buffer of its own.
    static func beginMetadataSection(codec: ModelCodecIdentifier, in buffer: inout [UInt8]) -> Int {
        let lengthAt = buffer.count
        buffer.append(0)
        buffer.append(codec.rawValue)
        return lengthAt
    }

    /// Writes the length of the metadata section begun at `lengthAt` and ending at `end`, and
    /// returns how many bytes that inserted (moving everything after `lengthAt` along): zero for
    /// sections up to 127 bytes.
    @discardableResult
    static func finishMetadataSection(lengthAt: Int, end: Int, in buffer: inout [UInt8]) -> Int {
        let sectionLength = end - lengthAt - 1
        let lengthBytes = LEB128.byteCount(of: sectionLength)
        guard lengthBytes > 1 else {
            buffer[lengthAt] = UInt8(sectionLength)
            return 0
        }
        var encodedLength: [UInt8] = []
        LEB128.append(sectionLength, to: &encodedLength)
        buffer.replaceSubrange(lengthAt..<(lengthAt + 1), with: encodedLength)
        return lengthBytes - 1
    }

    /// A version-3 value: `header`, `old`'s index values section (unless `keepingIndexValues`
    /// is false: a record from another database, whose index ids mean other indexes), the new
    /// metadata section (or `old`'s), `old`'s tags section and payload, byte for byte (a
    /// compressed payload stays compressed, with its flag). The checksum (and, for an
    /// encrypting store, the seal) is left for the caller.
    static func assemble(
        into buffer: inout [UInt8], header: RecordHeader, old: RecordHeader, record: UnsafeRawBufferPointer,
        newSection: [UInt8]?, keepingIndexValues: Bool = true
    ) {
        buffer.removeAll(keepingCapacity: true)
        let hasMetadata = newSection != nil || old.metadataCodec != nil
        let indexValues = keepingIndexValues ? old.indexValuesRange : nil
        header.writeVersionThree(
            to: &buffer, hasMetadata: hasMetadata, hasTags: !old.tagsRange.isEmpty,
            isCompressed: old.isPayloadCompressed, hasIndexValues: indexValues != nil)
        if let indexValues {
            LEB128.append(indexValues.count, to: &buffer)
            buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: record[indexValues]))
        }
        if let newSection {
            buffer.append(contentsOf: newSection)
        } else if let oldCodec = old.metadataCodec {
            RecordHeader.appendMetadataSection(
                codec: oldCodec, bytes: UnsafeRawBufferPointer(rebasing: record[old.metadataRange]), to: &buffer)
        }
        buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: record[old.tagsRange]))
        buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: record[old.length...]))
    }

    /// Stores the checksum of `key` and the finished value in its bytes 3..<7, by the rule of
    /// the value's version byte (version 3 for every write; version 2 for tests that craft one).
    static func seal(_ buffer: inout [UInt8], key: UnsafeRawBufferPointer) {
        let crc = buffer.withUnsafeBytes { checksum(value: $0, key: key) }
        buffer.withUnsafeMutableBytes {
            $0.storeBytes(of: crc.littleEndian, toByteOffset: checksumOffset, as: UInt32.self)
        }
    }

    /// The checksum of a value of at least 7 bytes, by its version byte: CRC-32C of the LevelDB
    /// key, then (version 3) value bytes 0..<3, then the value from offset 7. Any byte other
    /// than 2 computes version 3's rule, so a damaged version byte fails it.
    @inline(__always)
    static func checksum(value: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer) -> UInt32 {
        // One C call for the three parts (three calls each chose the CPU's code again).
        CRC32C.recordChecksum(key: key, value: value, coversHead: value[0] != versionTwo)
    }

    /// Whether `value` (whose envelope this is) holds the checksum of its bytes under `key`;
    /// always true for version 1, which has none.
    @inline(__always)
    func checksumMatches(value: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer) -> Bool {
        guard let storedChecksum else { return true }
        return Self.checksum(value: value, key: key) == storedChecksum
    }

    /// Whether what the envelope says about expiry may be acted on (a record counted as
    /// expired, deleted by a sweep): the checksum matches and, for a version-1 or version-2
    /// record whose flags no checksum covers, the deadline is one a write could have stored.
    /// Computed only for records that look expired, so live records cost nothing more.
    func vouchesForItsExpiry(value: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer) -> Bool {
        guard checksumMatches(value: value, key: key) else { return false }
        return isFullyChecked || hasPlausibleDeadline
    }

    /// Whether `value`, which does not parse, is a record whose checksum shows it damaged (so
    /// a read reports `corrupted`, not an unknown format): a version-2 or version-3 record whose
    /// checksum fails, or one whose version byte, put back to version 3's, makes it match.
    static func isDamagedRecord(_ value: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer) -> Bool {
        guard value.count >= checksummedFrom else { return false }
        let stored = UInt32(littleEndian: value.loadUnaligned(fromByteOffset: checksumOffset, as: UInt32.self))
        switch value[0] {
        case versionTwo, versionThree:
            return checksum(value: value, key: key) != stored
        default:
            var crc = CRC32C.checksum(key)
            crc = withUnsafeBytes(of: versionThree) { CRC32C.checksum($0, continuing: crc) }
            crc = CRC32C.checksum(UnsafeRawBufferPointer(rebasing: value[1..<checksumOffset]), continuing: crc)
            crc = CRC32C.checksum(UnsafeRawBufferPointer(rebasing: value[checksummedFrom...]), continuing: crc)
            return crc == stored
        }
    }
}
