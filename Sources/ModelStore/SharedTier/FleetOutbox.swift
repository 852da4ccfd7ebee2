// MARK: - The durable outbox
//
// A database with a shared tier keeps what it still owes the fleet in LevelDB, in the same
// atomic write as the change itself, so a process killed before Redis answered (or while Redis
// was unreachable) publishes it when it opens the database again:
//
// | key | value | written by |
// |---|---|---|
// | 0xFF 0x15, then the record's LevelDB key | `S` (a set: publish the record stored now) or `R` and the removal's time (8 bytes, Float64 little-endian) | every set or removal of a record, in its write |
// | 0xFF 0x16, then a number (8 bytes big-endian) | `p`, the key space's prefix with its length (LEB128), the prefix; or `u`, the removal's version (8 bytes, Float64 little-endian) and a tag; or `a` (the whole database) | a removal by prefix, collection or tag |
//
// (`t` and a tag, without a version, is what releases before versioned tag removals wrote: read
// as a removal of every record with the tag.)
//
// An entry goes once the tier has applied it (``SharedTierDatabase/didPublish(_:)``): for a set,
// only if the record is still the version published; for a removal, only if the entry is still
// that removal's; so a newer write of the key, made meanwhile, stays owed. What the tier itself
// stores locally (records it read, invalidations it applied) owes nothing and writes no entry.

enum FleetOutbox {
    /// The system kinds (the byte after 0xFF).
    static let keyKind: UInt8 = 0x15
    static let bulkKind: UInt8 = 0x16
    static let setMark = UInt8(ascii: "S")
    static let removalMark = UInt8(ascii: "R")

    /// The outbox key of the record whose LevelDB key is `recordKey`.
    static func key(of recordKey: UnsafeRawBufferPointer) -> [UInt8] {
        var key: [UInt8] = [KeySpace.systemMarker, keyKind]
        key.append(contentsOf: recordKey)
        return key
    }

    static let keyRange = KeyRange(lowerBound: [KeySpace.systemMarker, keyKind], upperBound: [KeySpace.systemMarker, keyKind + 1])
    static let bulkRange = KeyRange(lowerBound: [KeySpace.systemMarker, bulkKind], upperBound: [KeySpace.systemMarker, bulkKind + 1])

    /// The value of a removal's entry.
    static func removal(at time: Double) -> [UInt8] {
        var value: [UInt8] = [removalMark]
        withUnsafeBytes(of: time.bitPattern.littleEndian) { value.append(contentsOf: $0) }
        return value
    }

    /// A removal entry's time; nil for a set's entry or damage.
    static func removalTime(_ value: UnsafeRawBufferPointer) -> Double? {
        guard value.count == 9, value[0] == removalMark else { return nil }
        return RecordHeader.readDouble(value, at: 1)
    }

    /// A bulk removal as an entry's value; nil for `.keys` (never a bulk entry).
    static func encode(_ invalidation: SharedTierInvalidation) -> [UInt8]? {
        switch invalidation {
        case .prefix(let prefix, let collection):
            let space = (collection.flatMap { try? KeySpace(collection: $0) } ?? .default).prefix
            var value: [UInt8] = [UInt8(ascii: "p")]
            LEB128.append(space.count, to: &value)
            value += space
            value += Array(prefix.utf8)
            return value
        case .tag(let tag, let version):
            guard let version else { return [UInt8(ascii: "t")] + Array(tag.utf8) }
            var value: [UInt8] = [UInt8(ascii: "u")]
            withUnsafeBytes(of: version.time.bitPattern.littleEndian) { value.append(contentsOf: $0) }
            return value + Array(tag.utf8)
        case .database:
            return [UInt8(ascii: "a")]
        case .keys, .versioned:
            return nil
        }
    }

    /// The bulk removal an entry's value names; nil for damage.
    static func decode(_ value: UnsafeRawBufferPointer) -> SharedTierInvalidation? {
        guard let kind = value.first else { return nil }
        switch kind {
        case UInt8(ascii: "p"):
            var offset = 1
            guard let length = LEB128.read(value, at: &offset), value.count - offset >= length else { return nil }
            let space = UnsafeRawBufferPointer(rebasing: value[offset..<(offset + length)])
            let prefix = String(decoding: UnsafeRawBufferPointer(rebasing: value[(offset + length)...]), as: UTF8.self)
            if space.isEmpty { return .prefix(prefix, collection: nil) }
            guard let split = KeySpace.split(space), split.key.isEmpty else { return nil }
            return .prefix(prefix, collection: split.space.collection)
        case UInt8(ascii: "t"):
            return .tag(String(decoding: UnsafeRawBufferPointer(rebasing: value[1...]), as: UTF8.self))
        case UInt8(ascii: "u"):
            guard value.count > 9 else { return nil }
            let time = RecordHeader.readDouble(value, at: 1)
            guard !time.isNaN else { return nil }
            return .tag(
                String(decoding: UnsafeRawBufferPointer(rebasing: value[9...]), as: UTF8.self),
                version: SharedTierVersion(time: time))
        case UInt8(ascii: "a"):
            return value.count == 1 ? .database : nil
        default:
            return nil
        }
    }
}
