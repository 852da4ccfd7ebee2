/// The tag index: which records were written with a tag, kept so that
/// ``ModelStore/removeObjects(taggedWith:)`` finds them without reading the whole database.
///
/// Eager, not lazy: each tagged write puts one index entry per tag **in the same LevelDB
/// batch** as the record, so a record and its entries are stored together or not at all. An
/// entry's key is
///
///     0xFF 0x01  LEB128(tag's UTF-8 length)  tag's UTF-8  record's LevelDB key
///
/// (0xFF is ModelStore's system prefix, 0x01 the tag index's kind; see ``KeySpace``: the
/// default collection's scans stop below 0xF5, so users never see these keys) and its value
/// is empty. The length prefix keeps one tag's entries from running into another's ("a" never
/// matches the entries of "ab").
///
/// Writes never read: overwriting or removing a tagged record leaves its entries behind. Such
/// a stale entry is harmless, because the removal checks the record's own tags section (the
/// envelope's flag bit 2) before deleting it, and drops the entry either way; sweeps drop stale
/// entries too (``ModelStore/pruneTagIndex(in:)``).
///
/// Cost: a tagged `set` writes one extra key of about `tag + key + 3` bytes per tag in the same
/// atomic write; untagged writes pay nothing. A removal by tag reads each entry and its record.
enum TagIndex {
    /// The first byte of ModelStore's system keys.
    static let systemPrefix: UInt8 = 0xFF
    /// The tag index's kind, after the system prefix.
    static let kind: UInt8 = 0x01
    /// The longest tag accepted, in UTF-8 bytes.
    static let maximumTagLength = 1_024

    /// Every entry of `tag` starts with these bytes.
    static func prefix(of tag: String) -> [UInt8] {
        var bytes: [UInt8] = [systemPrefix, kind]
        LEB128.append(tag.utf8.count, to: &bytes)
        bytes.append(contentsOf: tag.utf8)
        return bytes
    }

    /// The entry that says `recordKey` was written with the tag whose prefix is `prefix`.
    static func entryKey(prefix: [UInt8], recordKey: UnsafeRawBufferPointer) -> [UInt8] {
        var bytes = prefix
        bytes.append(contentsOf: recordKey)
        return bytes
    }

    /// Adds the index entries of a record stored under the LevelDB key `recordKey` with `tags`
    /// to `batch`, the batch that writes the record. Entries name the physical key, so one tag
    /// covers every collection.
    static func addEntries(for tags: [String], recordKey: UnsafeRawBufferPointer, to batch: LevelDBWriteBatch) {
        for tag in tags {
            let entry = entryKey(prefix: prefix(of: tag), recordKey: recordKey)
            entry.withUnsafeBytes { batch.put(key: $0, value: UnsafeRawBufferPointer(start: nil, count: 0)) }
        }
    }

    /// Throws ``ModelStoreError/invalidTag(tag:reason:)`` for an empty or too long tag, and returns
    /// the tags without repeats, in their first order.
    static func validated(_ tags: [String]) throws(ModelStoreError) -> [String] {
        var seen = Set<ByteKey>()
        var unique: [String] = []
        for tag in tags {
            let length = tag.utf8.count
            if length == 0 { throw .invalidTag(tag: tag, reason: "the tag is empty") }
            if length > maximumTagLength { throw .invalidTag(tag: tag, reason: "the tag is \(length) UTF-8 bytes") }
            if seen.insert(ByteKey(tag)).inserted { unique.append(tag) }
        }
        return unique
    }

    /// Appends a tags section (LEB128 count, then each tag as LEB128 length and UTF-8 bytes).
    static func appendSection(_ tags: [String], to buffer: inout [UInt8]) {
        LEB128.append(tags.count, to: &buffer)
        for tag in tags {
            LEB128.append(tag.utf8.count, to: &buffer)
            buffer.append(contentsOf: tag.utf8)
        }
    }

    /// Whether the tags section `section` (as ``RecordHeader/tagsRange`` delimits it) holds `tag`.
    static func section(_ section: UnsafeRawBufferPointer, contains tag: String) -> Bool {
        guard !section.isEmpty else { return false }
        var offset = 0
        guard let count = LEB128.read(section, at: &offset) else { return false }
        let wanted = Array(tag.utf8)
        for _ in 0..<count {
            guard let length = LEB128.read(section, at: &offset), offset + length <= section.count else { return false }
            let bytes = section[offset..<(offset + length)]
            if length == wanted.count, wanted.withUnsafeBytes({ $0.elementsEqual(bytes) }) {
                return true
            }
            offset += length
        }
        return false
    }

    /// The tags of `record`, whose envelope is `header`: what an entry exposes. Empty, without
    /// allocating, for a record stored without tags.
    static func tags(of record: UnsafeRawBufferPointer, header: RecordHeader) -> [String] {
        guard !header.tagsRange.isEmpty else { return [] }
        return tags(in: UnsafeRawBufferPointer(rebasing: record[header.tagsRange]))
    }

    /// The tags in a tags section, for entries and tests.
    static func tags(in section: UnsafeRawBufferPointer) -> [String] {
        guard !section.isEmpty else { return [] }
        var offset = 0
        guard let count = LEB128.read(section, at: &offset) else { return [] }
        var tags: [String] = []
        for _ in 0..<count {
            guard let length = LEB128.read(section, at: &offset), offset + length <= section.count else { return tags }
            let bytes = UnsafeRawBufferPointer(rebasing: section[offset..<(offset + length)])
            tags.append(String(decoding: bytes, as: UTF8.self))
            offset += length
        }
        return tags
    }

    /// Whether a tag-index entry still describes a record that carries its tag. A damaged
    /// entry is not current; a record that fails its checksum keeps its entry (reads report it).
    static func entryIsCurrent(_ entry: UnsafeRawBufferPointer, engine: LevelDB) throws -> Bool {
        var offset = 2
        guard let tagLength = LEB128.read(entry, at: &offset), offset + tagLength <= entry.count else {
            return false
        }
        let tag = String(decoding: UnsafeRawBufferPointer(rebasing: entry[offset..<(offset + tagLength)]), as: UTF8.self)
        let recordKey = UnsafeRawBufferPointer(rebasing: entry[(offset + tagLength)...])
        return try engine.withValue(forKey: recordKey) { record -> Bool in
            guard let record else { return false }
            guard let header = RecordHeader(parsing: record), header.checksumMatches(value: record, key: recordKey)
            else { return true }
            return section(UnsafeRawBufferPointer(rebasing: record[header.tagsRange]), contains: tag)
        }
    }

    /// The tags section `tags` encode to, empty for none: what ``verifiedSection(of:key:)``
    /// returns for a record stored with them.
    static func section(of tags: [String]) -> [UInt8] {
        var section: [UInt8] = []
        if !tags.isEmpty { appendSection(tags, to: &section) }
        return section
    }

    /// The tags section of a stored record (empty: none), or nil when there is no record or it
    /// fails its checksum (its tags cannot be trusted).
    static func verifiedSection(of record: UnsafeRawBufferPointer?, key: UnsafeRawBufferPointer) -> [UInt8]? {
        guard let record, let header = RecordHeader(parsing: record), header.checksumMatches(value: record, key: key)
        else { return nil }
        return Array(record[header.tagsRange])
    }
}
