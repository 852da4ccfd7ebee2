import ModelStore

/// An invalidation as it travels in the Redis stream: which database, and what was named
/// (never a value). The payload is binary: a letter for the kind, then length-prefixed names.
///
/// | kind | payload after the letter |
/// |---|---|
/// | `k` keys | per key: `c` and the collection's name, or `d`; then the key |
/// | `p` prefix | `c` and the collection's name, or `d`; then the prefix |
/// | `t` tag (of any version) | the tag |
/// | `u` tag removed at a version | the tag, then the version (8 bytes, Float64 little-endian) |
/// | `a` the whole database | nothing |
/// | `v` keys with versions | per key: as `k`, then the version (8 bytes, Float64 little-endian) |
/// | `z` the database's generation was made anew (read it again) | nothing |
///
/// Every name is `<decimal length>:<bytes>`. A `v` payload is assembled in Redis from the
/// parts of the keys a publication set (``versionedPart(_:)``), after its kind byte.
enum InvalidationMessage {
    /// The payload of a generation made anew (see the table).
    static let generationReset: [UInt8] = [UInt8(ascii: "z")]
    /// The kind byte of a versioned keys payload.
    static let versionedKind: [UInt8] = [UInt8(ascii: "v")]

    /// One key's part of a `v` payload.
    static func versionedPart(_ change: SharedTierChange) -> [UInt8] {
        var out: [UInt8] = []
        appendSpace(change.key.collection, to: &out)
        out += RedisKeys.lengthPrefixed(Array(change.key.key.utf8))
        withUnsafeBytes(of: change.version.time.bitPattern.littleEndian) { out.append(contentsOf: $0) }
        return out
    }

    private static func appendSpace(_ collection: String?, to out: inout [UInt8]) {
        if let collection {
            out.append(UInt8(ascii: "c"))
            out += RedisKeys.lengthPrefixed(Array(collection.utf8))
        } else {
            out.append(UInt8(ascii: "d"))
        }
    }

    static func encode(_ invalidation: SharedTierInvalidation) -> [UInt8] {
        var out: [UInt8] = []
        func space(_ collection: String?) {
            appendSpace(collection, to: &out)
        }
        switch invalidation {
        case .versioned(let changes):
            out = versionedKind
            for change in changes { out += versionedPart(change) }
        case .keys(let keys):
            out.append(UInt8(ascii: "k"))
            for key in keys {
                space(key.collection)
                out += RedisKeys.lengthPrefixed(Array(key.key.utf8))
            }
        case .prefix(let prefix, let collection):
            out.append(UInt8(ascii: "p"))
            space(collection)
            out += RedisKeys.lengthPrefixed(Array(prefix.utf8))
        case .tag(let tag, let version):
            out.append(UInt8(ascii: version == nil ? "t" : "u"))
            out += RedisKeys.lengthPrefixed(Array(tag.utf8))
            if let version { withUnsafeBytes(of: version.time.bitPattern.littleEndian) { out.append(contentsOf: $0) } }
        case .database:
            out.append(UInt8(ascii: "a"))
        }
        return out
    }

    /// The invalidation `payload` names; nil if it is not one (another program's entry, damage).
    static func decode(_ payload: [UInt8]) -> SharedTierInvalidation? {
        var reader = Reader(bytes: payload)
        guard let kind = reader.byte() else { return nil }
        switch kind {
        case UInt8(ascii: "k"):
            var keys: [SharedTierKey] = []
            while !reader.isAtEnd {
                guard let collection = reader.space(), let key = reader.name() else { return nil }
                keys.append(SharedTierKey(collection: collection, key: key))
            }
            return .keys(keys)
        case UInt8(ascii: "v"):
            var changes: [SharedTierChange] = []
            while !reader.isAtEnd {
                guard let collection = reader.space(), let key = reader.name(), let time = reader.double(), !time.isNaN
                else { return nil }
                changes.append(SharedTierChange(key: SharedTierKey(collection: collection, key: key), version: SharedTierVersion(time: time)))
            }
            return .versioned(changes)
        case UInt8(ascii: "p"):
            guard let collection = reader.space(), let prefix = reader.name(), reader.isAtEnd else { return nil }
            return .prefix(prefix, collection: collection)
        case UInt8(ascii: "t"):
            guard let tag = reader.name(), reader.isAtEnd else { return nil }
            return .tag(tag)
        case UInt8(ascii: "u"):
            guard let tag = reader.name(), let time = reader.double(), !time.isNaN, reader.isAtEnd else { return nil }
            return .tag(tag, version: SharedTierVersion(time: time))
        case UInt8(ascii: "a"):
            return reader.isAtEnd ? .database : nil
        default:
            return nil
        }
    }

    private struct Reader {
        let bytes: [UInt8]
        var offset = 0

        var isAtEnd: Bool { offset == bytes.count }

        /// A Float64, little-endian.
        mutating func double() -> Double? {
            guard bytes.count - offset >= 8 else { return nil }
            var bits: UInt64 = 0
            for index in 0..<8 { bits |= UInt64(bytes[offset + index]) << (8 * index) }
            offset += 8
            return Double(bitPattern: bits)
        }

        mutating func byte() -> UInt8? {
            guard offset < bytes.count else { return nil }
            defer { offset += 1 }
            return bytes[offset]
        }

        /// `c` and a name (a collection), or `d` (the store's own keys: `.some(nil)`).
        mutating func space() -> String?? {
            switch byte() {
            case UInt8(ascii: "d"): return .some(nil)
            case UInt8(ascii: "c"): return name().map { .some($0) }
            default: return nil
            }
        }

        mutating func name() -> String? {
            var length = 0
            var digits = 0
            while let byte = byte(), byte != UInt8(ascii: ":") {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte), digits < 9 else { return nil }
                length = length * 10 + Int(byte - UInt8(ascii: "0"))
                digits += 1
            }
            guard digits > 0, offset <= bytes.count, bytes.count - offset >= length else { return nil }
            let slice = bytes[offset..<(offset + length)]
            offset += length
            // Names are valid UTF-8 (Swift strings); anything else is not ours.
            guard let name = String(validating: slice, as: UTF8.self) else { return nil }
            return name
        }
    }
}
