// MARK: - What a record read from the tier carries
//
// A tier that makes a tag removal reach the records it holds without finding them (per-tag
// removal clocks, say: ModelStoreRedis) compares each record it reads against the removals of
// its tags; these read what it needs from the record's own envelope.

extension SharedTierRecord {
    /// The tags the record was written with (empty for none, and for bytes that are not a
    /// record of a format ModelStore reads). Cheap when there are none: the envelope's flags say so.
    public var tags: [String] {
        bytes.withUnsafeBytes { bytes in
            guard bytes.count >= 2, bytes[1] & RecordHeader.hasTagsFlag != 0, let header = RecordHeader(parsing: bytes)
            else { return [] }
            return TagIndex.tags(of: bytes, header: header)
        }
    }

    /// The record's version across the fleet (its storedAt); nil if the bytes are not a record.
    public var version: SharedTierVersion? {
        SharedTierVersion(record: bytes)
    }
}
