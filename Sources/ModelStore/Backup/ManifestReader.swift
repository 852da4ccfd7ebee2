// MARK: - The one fact a private copy needs from a LevelDB MANIFEST
//
// A MANIFEST is a LevelDB log (32 KiB blocks of records: a 7-byte header, checksum 4, length 2,
// type 1 (full, first, middle, last), then the payload), each record one encoded VersionEdit:
// fields tagged by a varint32 (db/version_edit.cc): 1 comparator (a length-prefixed string),
// 2 log number, 3 next file number, 4 last sequence, 9 previous log number (varint64s),
// 5 compaction pointer (level, string), 6 deleted file (level, number), 7 new file (level,
// number, size, smallest and largest keys as strings).

/// Reads the largest "next file number" a MANIFEST records: every table it names has a
/// smaller number, and LevelDB numbers every file it creates after opening from it upward.
enum ManifestReader {
    /// The largest next-file number in `bytes`, or nil when any edit cannot be read (the caller
    /// then links nothing).
    static func nextFileNumber(in bytes: [UInt8]) -> UInt64? {
        let blockSize = LevelDBLogScrubber.blockSize
        let headerSize = LevelDBLogScrubber.headerSize
        var offset = 0
        var pending: [UInt8] = []
        var result: UInt64?
        while offset + headerSize <= bytes.count {
            let leftInBlock = blockSize - offset % blockSize
            if leftInBlock < headerSize {
                offset += leftInBlock  // the block's zero-filled trailer
                continue
            }
            let length = Int(bytes[offset + 4]) | Int(bytes[offset + 5]) << 8
            let type = bytes[offset + 6]
            if type == 0 && length == 0 {
                offset += leftInBlock  // zero padding
                continue
            }
            guard offset + headerSize + length <= bytes.count else { break }  // cut short: never written
            let payload = bytes[(offset + headerSize)..<(offset + headerSize + length)]
            offset += headerSize + length
            switch type {
            case 1:
                guard let next = edit(payload[...]) else { return nil }
                result = max(result ?? 0, next ?? 0)
            case 2:
                pending = Array(payload)
            case 3:
                pending += payload
            case 4:
                pending += payload
                guard let next = edit(pending[...]) else { return nil }
                result = max(result ?? 0, next ?? 0)
                pending = []
            default:
                return nil
            }
        }
        return result
    }

    /// The next-file number one edit records (nil inside when it records none); nil when the
    /// edit cannot be read.
    private static func edit(_ bytes: ArraySlice<UInt8>) -> UInt64?? {
        var rest = bytes
        var next: UInt64?
        while !rest.isEmpty {
            guard let tag = varint(&rest) else { return nil }
            switch tag {
            case 1:
                guard skipString(&rest) else { return nil }
            case 2, 4, 9:
                guard varint(&rest) != nil else { return nil }
            case 3:
                guard let value = varint(&rest) else { return nil }
                next = value
            case 5:
                guard varint(&rest) != nil, skipString(&rest) else { return nil }
            case 6:
                guard varint(&rest) != nil, varint(&rest) != nil else { return nil }
            case 7:
                guard varint(&rest) != nil, varint(&rest) != nil, varint(&rest) != nil, skipString(&rest),
                    skipString(&rest)
                else { return nil }
            default:
                return nil
            }
        }
        return .some(next)
    }

    private static func varint(_ bytes: inout ArraySlice<UInt8>) -> UInt64? {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while let byte = bytes.popFirst(), shift < 64 {
            value |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return value }
            shift += 7
        }
        return nil
    }

    private static func skipString(_ bytes: inout ArraySlice<UInt8>) -> Bool {
        guard let length = varint(&bytes), length <= UInt64(bytes.count) else { return false }
        bytes = bytes.dropFirst(Int(length))
        return true
    }
}
