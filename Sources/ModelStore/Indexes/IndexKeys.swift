// MARK: - Where indexes live
//
// Five kinds of system record (0xFF, see KeySpace), none ever returned by keys, counts, scans
// or sweeps of user records, which all stop below 0xFF, and a section of the records themselves:
//
//   0xFF 0x10  space  name                       the index's definition (IndexDefinition)
//   0xFF 0x11  id     value encoding  user key   one entry per value per record; empty value
//   0xFF 0x13  space  user key                   the record's current encodings in the indexes
//                                                its section does not describe (values entry)
//   0xFF 0x14                                    the highest index id ever given out (IndexIDFloor)
//   record's index values section                its current encodings in every index of its key
//                                                space that read its model (RecordEnvelope.swift)
//   0xFF 0x12  id     user key                   one index's encodings of one record (reverse
//                                                entry): definitions of format 1 only, which
//                                                `defineIndex` rebuilds; cleared with their ids
//
// - `space` is 0x00 for the default collection, or the collection's own key prefix (0xFE, its
//   name's length, its name's UTF-8): one byte that never starts the other, so space and name
//   split one way only.
// - `id` is the index's number, 4 bytes big-endian, unique in the database: every definition,
//   and every version of one, has its own, so a new version's entries never meet an old one's,
//   and all of one index's entries lie in one range (dropped in chunks).
// - The value encoding is self-delimiting (IndexValue+Encoding.swift), so an entry's key
//   splits into id, value and user key one way only, and LevelDB's order is the index order
//   then the key order.
// - A values entry's value is a format byte (1), then one part per index that has a value for
//   the record: the index's id (4 bytes big-endian), the LEB128 byte length of its encodings,
//   then the encodings one after the other (IndexParts.swift; a record's section holds parts
//   the same way, an empty one for no value). With the section, it is what an overwrite or a
//   removal deletes, without decoding the old model: one read of the old record per write for
//   all of a key space's indexes, and of the values entry only for an index the section has no
//   part for (a record a build indexed, or one written before sections). A record whose values
//   are all in its section, or that has no value in any other index, has no values entry. Parts of ids the writing process
//   did not define are kept as they are (those indexes go stale, as their entries do); parts of
//   ids whose entries were cleared (an old version, a dropped index) only name entries that are
//   gone, whose deletes do nothing, and go when a write rewrites the record's values entry.
// - A reverse entry (format-1 definitions, written before values entries existed) is a format
//   byte (1) then one index's encodings.

/// The keys of indexes' system records.
enum IndexKeys {
    static let definitionKind: UInt8 = 0x10
    static let entryKind: UInt8 = 0x11
    static let reverseKind: UInt8 = 0x12
    static let valuesKind: UInt8 = 0x13
    /// The highest index id the database ever gave out (IndexIDFloor.swift).
    static let floorKind: UInt8 = 0x14
    /// The first byte of a values entry's value.
    static let valuesFormat: UInt8 = 1

    /// The definition key of the index `name` of `space`.
    static func definitionKey(name: String, in space: KeySpace) -> [UInt8] {
        definitionPrefix(of: space) + Array(name.utf8)
    }

    /// Every definition key of `space` starts with these bytes.
    static func definitionPrefix(of space: KeySpace) -> [UInt8] {
        [KeySpace.systemMarker, definitionKind] + (space.isDefault ? [0x00] : space.prefix)
    }

    /// Every definition of the database.
    static let allDefinitions = KeyRange(
        lowerBound: [KeySpace.systemMarker, definitionKind], upperBound: [KeySpace.systemMarker, definitionKind + 1])

    /// The space and name of a definition key; nil for bytes no definition key has.
    static func split(definitionKey key: UnsafeRawBufferPointer) -> (space: KeySpace, name: String)? {
        guard key.count >= 3, key[0] == KeySpace.systemMarker, key[1] == definitionKind else { return nil }
        if key[2] == 0x00 {
            return (.default, String(decoding: UnsafeRawBufferPointer(rebasing: key[3...]), as: UTF8.self))
        }
        guard key[2] == KeySpace.collectionMarker, key.count >= 4 else { return nil }
        let length = Int(key[3])
        guard length > 0, key.count >= 4 + length else { return nil }
        let collection = String(decoding: UnsafeRawBufferPointer(rebasing: key[4..<(4 + length)]), as: UTF8.self)
        guard let space = try? KeySpace(collection: collection), space.prefix.elementsEqual(key[2..<(4 + length)]) else {
            return nil
        }
        return (space, String(decoding: UnsafeRawBufferPointer(rebasing: key[(4 + length)...]), as: UTF8.self))
    }

    static func idBytes(_ id: UInt32) -> [UInt8] {
        [UInt8(truncatingIfNeeded: id >> 24), UInt8(truncatingIfNeeded: id >> 16), UInt8(truncatingIfNeeded: id >> 8),
         UInt8(truncatingIfNeeded: id)]
    }

    /// Every entry of index `id` starts with these bytes.
    static func entryPrefix(_ id: UInt32) -> [UInt8] {
        [KeySpace.systemMarker, entryKind] + idBytes(id)
    }

    /// Every reverse entry of index `id` starts with these bytes.
    static func reversePrefix(_ id: UInt32) -> [UInt8] {
        [KeySpace.systemMarker, reverseKind] + idBytes(id)
    }

    /// The entry of `userKey` (UTF-8) for the value whose encoding is `encoded`.
    static func entryKey(_ id: UInt32, encoded: some Collection<UInt8>, userKey: UnsafeRawBufferPointer) -> [UInt8] {
        var key = entryPrefix(id)
        key.reserveCapacity(key.count + encoded.count + userKey.count)
        key.append(contentsOf: encoded)
        key.append(contentsOf: userKey)
        return key
    }

    /// The reverse entry of `userKey` (UTF-8), of a format-1 definition.
    static func reverseKey(_ id: UInt32, userKey: UnsafeRawBufferPointer) -> [UInt8] {
        var key = reversePrefix(id)
        key.append(contentsOf: userKey)
        return key
    }

    /// The values entry of the record `userKey` (UTF-8) of `space`.
    static func valuesKey(in space: KeySpace, userKey: UnsafeRawBufferPointer) -> [UInt8] {
        var key: [UInt8] = []
        key.reserveCapacity(3 + space.prefix.count + userKey.count)
        appendValuesKey(in: space, userKey: userKey, to: &key)
        return key
    }

    /// Appends the values entry key of the record `userKey` of `space` to `key`.
    static func appendValuesKey(in space: KeySpace, userKey: UnsafeRawBufferPointer, to key: inout [UInt8]) {
        key.append(KeySpace.systemMarker)
        key.append(valuesKind)
        if space.isDefault { key.append(0x00) } else { key.append(contentsOf: space.prefix) }
        key.append(contentsOf: userKey)
    }

    /// Every values entry of the database.
    static let allValues = KeyRange(
        lowerBound: [KeySpace.systemMarker, valuesKind], upperBound: [KeySpace.systemMarker, valuesKind + 1])

    /// The entries of index `id` whose values lie in `lower ..< upper` (nil: open), or, with
    /// `includingUpper`, `lower ... upper`.
    static func entryRange(_ id: UInt32, from lower: IndexValue?, to upper: IndexValue?, includingUpper: Bool) -> KeyRange {
        let prefix = entryPrefix(id)
        let lowerBound = lower.map { prefix + $0.encoded } ?? prefix
        let upperBound: [UInt8]?
        if let upper {
            // Every entry of `upper` starts with its encoding: past them all is the prefix's successor.
            upperBound = includingUpper ? KeyRange.successor(ofPrefix: prefix + upper.encoded) : prefix + upper.encoded
        } else {
            upperBound = KeyRange.successor(ofPrefix: prefix)
        }
        return KeyRange(lowerBound: lowerBound, upperBound: upperBound)
    }

    /// The user key (UTF-8) at the end of an entry's key; nil for a damaged entry.
    static func userKey(ofEntry key: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer? {
        guard let length = IndexValue.encodedLength(in: key, at: 6) else { return nil }
        return UnsafeRawBufferPointer(rebasing: key[(6 + length)...])
    }
}
