/// The 64-bit hash eviction knows a record by: of its LevelDB key, computed alike from the key's
/// bytes (a sweep's walk) and from a key and its key space (a read, without building the key).
///
/// The LevelDB key is a key space's prefix (none for the default collection, `FE`, a length and
/// a name for a named one) followed by the key's UTF-8 bytes, so the hash combines a hash of each
/// part; ``physical(_:)`` splits a LevelDB key where ``KeySpace`` put the parts together.
enum KeyHash {
    /// The hash of the LevelDB key `physical`.
    static func physical(_ physical: UnsafeRawBufferPointer) -> UInt64 {
        let prefixLength: Int
        if let first = physical.first, first == KeySpace.collectionMarker, physical.count >= 2 {
            prefixLength = min(physical.count, 2 + Int(physical[1]))
        } else {
            prefixLength = 0
        }
        let prefix = UnsafeRawBufferPointer(rebasing: physical[..<prefixLength])
        let key = UnsafeRawBufferPointer(rebasing: physical[prefixLength...])
        return combine(prefix: bytes(prefix), key: bytes(key))
    }

    /// The hash of `key`'s LevelDB key in `space`, equal to ``physical(_:)`` of it.
    static func key(_ key: String, in space: KeySpace) -> UInt64 {
        let prefix = space.prefix.isEmpty ? emptyHash : space.prefix.withUnsafeBytes { bytes($0) }
        var key = key
        let keyHash = key.withUTF8 { bytes(UnsafeRawBufferPointer($0)) }
        return combine(prefix: prefix, key: keyHash)
    }

    private static let emptyHash = bytes(UnsafeRawBufferPointer(start: nil, count: 0))

    private static func combine(prefix: UInt64, key: UInt64) -> UInt64 {
        mix(prefix &* 0x9E37_79B9_7F4A_7C15 ^ key)
    }

    /// A hash of `bytes`, eight at a time: a multiply and a shift per word, a finalising mix.
    @inline(__always)
    private static func bytes(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var hash: UInt64 = 0x2545_F491_4F6C_DD1D ^ UInt64(bytes.count)
        var offset = 0
        while offset + 8 <= bytes.count {
            hash = (hash ^ bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) &* 0xFF51_AFD7_ED55_8CCD
            hash ^= hash >> 32
            offset += 8
        }
        var tail: UInt64 = 0
        var shift: UInt64 = 0
        while offset < bytes.count {
            tail |= UInt64(bytes[offset]) << shift
            shift += 8
            offset += 1
        }
        return mix(hash ^ tail)
    }

    /// MurmurHash3's 64-bit finaliser: every input bit reaches every output bit.
    @inline(__always)
    static func mix(_ value: UInt64) -> UInt64 {
        var value = value
        value ^= value >> 33
        value = value &* 0xFF51_AFD7_ED55_8CCD
        value ^= value >> 33
        value = value &* 0xC4CE_B9FE_1A85_EC53
        value ^= value >> 33
        return value
    }
}
