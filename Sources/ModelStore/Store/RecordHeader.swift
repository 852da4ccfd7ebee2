// MARK: - Record format
//
// Every value ModelStore writes to LevelDB is a small header followed by the encoded model.
// The timestamps live here, never in (or mutating) the user's model. Keys are the caller's
// key as UTF-8 bytes, unchanged, so LevelDB's key order is the keys' byte order.
//
//   offset  size  field
//   ------  ----  -----------------------------------------------------------------------
//        0     1  format version, currently 1; a reader refuses versions it does not know
//        1     1  flags: bit 0 set = a per-record deadline follows storedAt; other bits 0
//        2     1  codec identifier (1 JSON, 2 property list, 3 binary, 128-255 custom)
//        3     8  storedAt: IEEE-754 Float64, little-endian, seconds since 2001-01-01 UTC
//                 (Date.timeIntervalSinceReferenceDate, so a Date round-trips exactly)
//       11     8  (only if flags bit 0) expiresAt: same encoding; this deadline wins over
//                 the store's update policy
//    11/19     …  payload: the model, as the codec encoded it
//
// Reading an expiry never decodes the payload, so sweeps cost only the header.

/// The parsed header of a stored record.
struct RecordHeader: Equatable, Sendable {
    static let formatVersion: UInt8 = 1
    static let hasDeadlineFlag: UInt8 = 0b0000_0001
    static let baseLength = 11
    static let deadlineLength = 8

    /// When the record was written, as seconds since the reference date.
    var storedAt: Double
    /// The record's own deadline, if it was written with one.
    var expiresAt: Double?
    /// The codec that encoded the payload.
    var codec: ModelCodecIdentifier

    /// The number of bytes the header occupies.
    var length: Int { expiresAt == nil ? Self.baseLength : Self.baseLength + Self.deadlineLength }

    /// Appends the encoded header to `buffer`.
    func write(to buffer: inout [UInt8]) {
        // Assembled on the stack and appended in one go: every put writes a header, and one
        // append is one capacity check and one copy instead of five.
        var packed: (UInt64, UInt64, UInt64) = (0, 0, 0)
        let length = self.length
        withUnsafeMutableBytes(of: &packed) { bytes in
            bytes[0] = Self.formatVersion
            bytes[1] = expiresAt == nil ? 0 : Self.hasDeadlineFlag
            bytes[2] = codec.rawValue
            bytes.storeBytes(of: storedAt.bitPattern.littleEndian, toByteOffset: 3, as: UInt64.self)
            if let expiresAt {
                bytes.storeBytes(of: expiresAt.bitPattern.littleEndian, toByteOffset: Self.baseLength, as: UInt64.self)
            }
            buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[..<length]))
        }
    }

    /// Parses the header at the start of `bytes`; nil if the bytes are not a valid header.
    init?(parsing bytes: UnsafeRawBufferPointer) {
        guard bytes.count >= Self.baseLength, bytes[0] == Self.formatVersion else { return nil }
        let flags = bytes[1]
        guard flags & ~Self.hasDeadlineFlag == 0 else { return nil }
        codec = ModelCodecIdentifier(rawValue: bytes[2])
        storedAt = Self.readDouble(bytes, at: 3)
        guard storedAt.isFinite else { return nil }
        if flags & Self.hasDeadlineFlag != 0 {
            guard bytes.count >= Self.baseLength + Self.deadlineLength else { return nil }
            let deadline = Self.readDouble(bytes, at: Self.baseLength)
            guard !deadline.isNaN else { return nil }
            expiresAt = deadline
        } else {
            expiresAt = nil
        }
    }

    init(storedAt: Double, expiresAt: Double?, codec: ModelCodecIdentifier) {
        self.storedAt = storedAt
        self.expiresAt = expiresAt
        self.codec = codec
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

    private static func readDouble(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> Double {
        let bits = bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
        return Double(bitPattern: UInt64(littleEndian: bits))
    }
}
