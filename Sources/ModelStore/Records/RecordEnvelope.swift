import Foundation

// MARK: - Record format
//
// Every value ModelStore writes to LevelDB is a small envelope followed by the encoded model.
// The timestamps and the metadata live here, never in (or mutating) the user's model. Byte 0
// says which layout follows; a reader dispatches on it, so all versions live side by side in
// one database, record by record. New writes always use version 3; versions 1 and 2 stay
// readable forever (a record is only rewritten as version 3 when it is written again).
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
// Version 2 (written until format 3 arrived):
//
//   offset  size  field
//   ------  ----  -----------------------------------------------------------------------
//        0     1  format version: 2
//        1     1  flags: bit 0 deadline follows; bit 1 metadata section; bit 2 tags section;
//                 bit 3 the payload is compressed; bits 4-7 zero (reserved). A record with an
//                 unknown bit set is refused (readers before bit 3 refuse compressed records).
//        2     1  payload codec identifier (as in version 1)
//        3     4  CRC-32C (Castagnoli), little-endian, of the full LevelDB key followed by
//                 value bytes 7...end. Bytes 0-2 are NOT covered: see "Unverifiable bytes".
//        7     8  storedAt (as in version 1)
//       15     8  (only if bit 0) expiresAt (as in version 1)
//        …     …  (only if bit 1) metadata: LEB128 length L (L >= 1), 1 byte codec
//                 identifier, L-1 bytes of metadata as that codec encoded it
//        …     …  (only if bit 2) tags: LEB128 count, then per tag a LEB128 length and the
//                 tag's UTF-8 bytes
//        …     …  payload: the model, as its codec encoded it, to the end of the value; with
//                 bit 3, a LEB128 dictionary id (0: none; see RecordDictionaries.swift) and
//                 one Zstandard frame of the encoded model (with its content size and the
//                 dictionary's Zstandard id, without its own checksum), to the end of the value
//
// Version 3 (every write since; the version-2 layout with a full checksum and one more flag):
//
//   offset  size  field
//   ------  ----  -----------------------------------------------------------------------
//        0     1  format version: 0x33 (ASCII "3"), not 3: see below
//        1     1  flags: bits 0-3 as in version 2; bit 4 the record never expires, whatever
//                 the policy of the store that reads it (a `.never` collection's records);
//                 bit 5 sealed (below); bit 6 an index values section follows the deadline;
//                 bit 7 zero (reserved). Bits 0 and 4 together are refused.
//        2     1  payload codec identifier (as in version 1)
//        3     4  CRC-32C, little-endian, of the full LevelDB key, then value bytes 0..<3,
//                 then value bytes 7...end: every byte of the value but the checksum itself
//        7     8  storedAt, then the deadline (only if bit 0), as version 2
//        …     …  (only if bit 6) index values: LEB128 length L, then L bytes of parts, one per
//                 index of the record's key space: the index's id (4 bytes big-endian), the
//                 LEB128 byte length of its encodings, the encodings (IndexValue+Encoding.swift)
//                 one after another (none: the index has no value for the record). An index
//                 without a part is not described here (its values entry says; see
//                 Indexes/IndexKeys.swift). Written by sets that computed their model's index
//                 values, copied by rewrites, dropped from records that come from another
//                 database (the shared tier), whose index ids mean other indexes.
//        …     …  metadata, tags, payload, as version 2
//
// Sealed records (version 3 with flag bit 5; written by stores with `Configuration.encryption`;
// readers before it refuse the bit as unknown). The model and the metadata are sealed with
// AES-256-GCM (Records/../Encryption/RecordCipher.swift); what sweeps, counts and the tag index
// read without a key stays plain:
//
//   offset  size  field
//   ------  ----  -----------------------------------------------------------------------
//        0     1  format version: 0x33
//        1     1  flags: as version 3, with bit 5 set. Bits 1 (metadata) and 3 (compressed)
//                 describe the plaintext inside the seal
//        2     1  payload codec identifier (as in version 1)
//        3     4  CRC-32C, as version 3: over the key and every byte of the value but itself,
//                 ciphertext and tag included (damage is reported as such, before decryption)
//        7     8  storedAt (as in version 1)
//       15     8  (only if bit 0) expiresAt
//        …     …  (only if bit 6) index values section, as version 3, in the clear (the index
//                 entries hold the values in their keys anyway)
//        …     …  (only if bit 2) tags section, as in version 2, in the clear (the tag index
//                 holds the tags in its keys anyway)
//        …     4  key identifier, little-endian: which key sealed it (see RecordCipher.keyID)
//        …    12  nonce, random per seal
//        …     …  ciphertext of: the metadata section (only if bit 1), then the payload as
//                 version 3 stores it (a dictionary id and Zstandard frame if bit 3)
//      end    16  GCM tag
//
// Associated data: the LevelDB key (which names the collection), value bytes 0..<3, then value
// bytes 7 up to the ciphertext (storedAt, deadline, index values, tags, key identifier, nonce). A value copied
// to another key or collection, or with any envelope byte changed, does not open, even with a
// recomputed checksum. Opened, a sealed record is the plain version-3 record it was before
// sealing (checksum field zero), which every read path then handles as any other.
//
// Why 0x33 and not 3: the version byte decides how much of the record the checksum covers,
// so a damaged version byte must never turn a version-3 record into an older, less checked
// one. 3 (0b0000_0011) is one bit flip from 1 and from 2; 0x33 (0b0011_0011) is three flips
// from each (and four from 0x00 and 0xFF), so a single flipped bit (or two) makes an unknown
// version, which is refused, never a version 1 or 2 record whose garbage fields are trusted.
// A reader that finds an unknown version byte which, put back to 0x33, makes the checksum
// match reports the record as corrupted rather than as a newer format.
//
// Unverifiable bytes (versions 1 and 2). A version-1 record has no checksum; a version-2
// record's bytes 0-2 (version, flags, codec) are outside its checksum, and the flags decide
// whether a deadline is read and where the sections start. So:
//   - a read never deletes a version-1 or version-2 record: when its envelope says it has
//     expired it reads as missing and is left for a sweep or an overwrite;
//   - a deadline earlier than storedAt, or more than `neverLifetime` after it, is one those
//     releases never stored (every lifetime is positive), so in such a record it is damage
//     (typically a flipped deadline flag reading 8 bytes of text as a Float64): reads report
//     `corrupted`, a rewrite (refresh, replaceMetadata) refuses it, nothing deletes it;
//   - sweeps delete expired version-2 records whose checksum (bytes 7...end) matches and
//     whose deadline is plausible (version-1 records: whose deadline is plausible); what
//     remains unprotected is a flip in bytes 0-2 that still yields a plausible, expired
//     envelope (a cleared deadline flag under a store policy the record's own deadline
//     outlived). Such records become version 3 when written again.
//
// Records that never expire. Version 3 says so with flag bit 4. Earlier releases gave a
// `.never` collection's records a deadline `RecordHeader.neverLifetime` (about 2,000 years)
// after storedAt; a version-1 or version-2 record whose deadline is that far from its storedAt
// (within a second) reads as never expiring too, and keeps the flag when it is rewritten.
//
// Reading an expiry never decodes the payload, so sweeps and counts cost only the header;
// they verify the checksum only of a record whose envelope says it has expired, before they
// act on that (a count or `contains` then treats a record that fails it as present, as it
// treats one whose envelope does not parse; a sweep never deletes it). Every read that returns
// a model or metadata verifies the checksum first. LEB128 lengths are bounded by the bytes that
// are left, so a hostile length is refused before anything is allocated.

/// The parsed envelope of a stored record: everything but the payload.
struct RecordHeader: Equatable, Sendable {
    static let versionOne: UInt8 = 1
    static let versionTwo: UInt8 = 2
    /// Version 3's byte: three bit flips away from 1 and from 2 (see the format comment).
    static let versionThree: UInt8 = 0x33
    static let hasDeadlineFlag: UInt8 = 0b0000_0001
    static let hasMetadataFlag: UInt8 = 0b0000_0010
    static let hasTagsFlag: UInt8 = 0b0000_0100
    static let compressedPayloadFlag: UInt8 = 0b0000_1000
    /// Version 3 only: the record never expires, whatever the reading store's policy.
    static let neverExpiresFlag: UInt8 = 0b0001_0000
    /// The flags a version-2 record may carry.
    static let knownFlags: UInt8 = 0b0000_1111
    /// Version 3 only: the model and metadata are sealed (see "Sealed records" above).
    static let sealedFlag: UInt8 = 0b0010_0000
    /// Version 3 only: an index values section follows the deadline (see the format comment).
    static let indexValuesFlag: UInt8 = 0b0100_0000
    /// The flags a version-3 record may carry.
    static let knownFlagsV3: UInt8 = 0b0111_1111
    /// A sealed record's key identifier and nonce, between its tags and its ciphertext.
    static let sealedPrefixLength = 16
    /// The GCM tag at the end of a sealed record.
    static let sealTagLength = 16
    static let baseLengthV1 = 11
    /// The fixed part of a version-2 or version-3 envelope.
    static let baseLengthV2 = 15
    static let checksumOffset = 3
    /// Where the checksummed part of a version-2 value starts (after the checksum itself).
    static let checksummedFrom = 7
    static let deadlineLength = 8
    /// The lifetime that means "never expires" on the write paths: what a `.never` collection
    /// passes (so it flows through every path that takes a lifetime, validation included) and
    /// what version 3 stores as flag bit 4. Earlier releases stored it as a deadline this far
    /// (about 2,000 years, the distance from 2001 to `Date.distantFuture`) after storedAt, which
    /// still reads as never expiring. A program that gives exactly this lifetime (63,113,904,000
    /// seconds) gets "never" too, which is what 2,000 years amounts to.
    static let neverLifetime = Date.distantFuture.timeIntervalSinceReferenceDate

    /// The format version's byte: 1, 2 or ``versionThree``.
    var version: UInt8
    /// When the record was written, as seconds since the reference date.
    var storedAt: Double
    /// The record's own deadline, if it was written with one (nil when it never expires).
    var expiresAt: Double?
    /// Whether the record never expires whatever the policy (flag bit 4, or a version-1 or
    /// version-2 record with the far deadline earlier releases stamped instead).
    var neverExpires = false
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
    /// The index values section's parts, after its length (nil when the record has none).
    var indexValuesRange: Range<Int>?
    /// Where the part of the envelope that is never sealed and comes before the metadata ends:
    /// the fixed part and the index values section, length included.
    var clearPrefixLength = 0
    /// The stored checksum (versions 2 and 3).
    var storedChecksum: UInt32?
    /// For a sealed record, where its key identifier starts (its metadata and payload are in the
    /// ciphertext: ``metadataRange`` is empty and ``length`` is the whole value); 0 otherwise.
    var sealedAt = 0

    /// Whether the model and metadata are sealed (flag bit 5): open it before reading them.
    @inline(__always)
    var isSealed: Bool { sealedAt != 0 }

    /// The fixed part of a version-3 envelope: up to the end of storedAt or the deadline (in
    /// version 3 a deadline is stored exactly when ``expiresAt`` is set).
    var fixedLength: Int {
        Self.baseLengthV2 + (expiresAt == nil ? 0 : Self.deadlineLength)
    }

    /// Parses the envelope at the start of `bytes`; nil if it is not a valid envelope of a
    /// version this reader knows (damaged, truncated, or with unknown flags).
    init?(parsing bytes: UnsafeRawBufferPointer) {
        self.init(parsingInPlace: bytes)
    }

    /// ``init(parsing:)`` compiled into its caller, for the paths that parse every record they
    /// pass (a sweep, a lookup, a record's state): out of line, the header was built field by
    /// field and then copied out whole, and the copy's wide loads of the narrow stores just made
    /// stalled (a third of a sweep's time in ModelStore). Inlined, the caller keeps the fields
    /// it reads in registers.
    @inline(__always)
    init?(parsingInPlace bytes: UnsafeRawBufferPointer) {
        guard bytes.count >= Self.baseLengthV1 else { return nil }
        switch bytes[0] {
        case Self.versionThree: self.init(parsingSections: bytes, version: Self.versionThree)
        case Self.versionTwo: self.init(parsingSections: bytes, version: Self.versionTwo)
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
        clearPrefixLength = length
        recogniseLegacyNever()
    }

    /// Versions 2 and 3, which differ only in the checksum's coverage and flag bit 4.
    @inline(__always)
    private init?(parsingSections bytes: UnsafeRawBufferPointer, version: UInt8) {
        guard bytes.count >= Self.baseLengthV2 else { return nil }
        let flags = bytes[1]
        let isThree = version == Self.versionThree
        guard flags & ~(isThree ? Self.knownFlagsV3 : Self.knownFlags) == 0 else { return nil }
        self.version = version
        codec = ModelCodecIdentifier(rawValue: bytes[2])
        isPayloadCompressed = flags & Self.compressedPayloadFlag != 0
        storedChecksum = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: Self.checksumOffset, as: UInt32.self))
        storedAt = Self.readDouble(bytes, at: 7)
        guard storedAt.isFinite else { return nil }
        var offset = Self.baseLengthV2
        guard let deadline = Self.readDeadline(bytes, flags: flags, at: &offset) else { return nil }
        expiresAt = deadline
        if isThree, flags & Self.indexValuesFlag != 0 {
            guard let sectionLength = LEB128.read(bytes, at: &offset) else { return nil }
            indexValuesRange = offset..<(offset + sectionLength)
            offset += sectionLength
        }
        clearPrefixLength = offset
        let isSealed = isThree && flags & Self.sealedFlag != 0
        if flags & Self.hasMetadataFlag != 0, !isSealed {
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
        if isSealed {
            guard bytes.count - offset >= Self.sealedPrefixLength + Self.sealTagLength else { return nil }
            sealedAt = offset
            offset = bytes.count
        }
        length = offset
        if isThree {
            if flags & Self.neverExpiresFlag != 0 {
                // A deadline and "never" at once is no envelope a writer makes.
                guard deadline == nil else { return nil }
                neverExpires = true
            }
        } else {
            recogniseLegacyNever()
        }
    }

    /// A version-1 or version-2 record from a `.never` collection carries a deadline
    /// ``neverLifetime`` after its storedAt (a refresh kept that distance): it never expires.
    /// A second of slack absorbs the rounding of `storedAt + lifetime` and of a refresh's
    /// `now + (expiresAt - storedAt)`; no lifetime a program would choose is that close.
    private mutating func recogniseLegacyNever() {
        guard let expiresAt, abs((expiresAt - storedAt) - Self.neverLifetime) <= 1 else { return }
        self.expiresAt = nil
        neverExpires = true
    }

    /// Reads the deadline when `flags` say one follows at `offset`, and moves past it.
    /// Returns nil for a damaged one, `.some(nil)` when there is none.
    @inline(__always)
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

    /// A header for a new record, with its own deadline `expiresAt` (nil: the policy decides).
    @inline(__always)
    init(storedAt: Double, expiresAt: Double?, codec: ModelCodecIdentifier, neverExpires: Bool = false) {
        self.version = Self.versionThree
        self.storedAt = storedAt
        self.expiresAt = neverExpires ? nil : expiresAt
        self.neverExpires = neverExpires
        self.codec = codec
        self.length = Self.baseLengthV2 + (self.expiresAt == nil ? 0 : Self.deadlineLength)
        self.clearPrefixLength = length
    }

    /// A header for a new record stored at `storedAt` that lives `lifetime` seconds (nil: the
    /// policy decides; ``neverLifetime``: it never expires).
    @inline(__always)
    init(storedAt: Double, lifetime: Double?, codec: ModelCodecIdentifier) {
        let never = lifetime == Self.neverLifetime
        self.init(
            storedAt: storedAt, expiresAt: never ? nil : lifetime.map { storedAt + $0 }, codec: codec,
            neverExpires: never)
    }

    /// The format's number, 1, 2 or 3, as the documentation names it (version 3's byte is 0x33).
    var formatNumber: Int { version == Self.versionThree ? 3 : Int(version) }

    /// Whether the checksum covers every byte of the value (version 3): only then may a read
    /// act on what the envelope says, such as delete a record it says has expired.
    var isFullyChecked: Bool { version == Self.versionThree }

    /// The moment the record stops being fresh under a policy lifetime of `timeToLive`
    /// seconds (nil: never), as seconds since the reference date.
    @inline(__always)
    func deadline(timeToLive: Double?) -> Double? {
        if let expiresAt { return expiresAt }
        guard !neverExpires, let timeToLive else { return nil }
        return storedAt + timeToLive
    }

    /// Whether the record is expired at `now` (seconds since the reference date).
    @inline(__always)
    func isExpired(now: Double, timeToLive: Double?) -> Bool {
        guard let deadline = deadline(timeToLive: timeToLive) else { return false }
        return now >= deadline
    }

    /// Whether a deadline in a version-1 or version-2 envelope, whose flags no checksum covers,
    /// is one those releases wrote: every lifetime is positive, so never before storedAt, and
    /// none stored more than ``neverLifetime`` (about 2,000 years) after it, `.never`
    /// collections' deadline included. Anything else is damage, typically a flipped deadline
    /// flag reading 8 bytes of a section or the model as a deadline: as a Float64, text and most
    /// other bytes land far outside that window.
    var hasPlausibleDeadline: Bool {
        guard let expiresAt else { return true }
        return expiresAt >= storedAt && expiresAt - storedAt <= Self.neverLifetime + 1
    }

    static func readDouble(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> Double {
        let bits = bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
        return Double(bitPattern: UInt64(littleEndian: bits))
    }
}
