#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A record key that is equal to another, and hashes, by its UTF-8 bytes: the way LevelDB
/// compares keys.
///
/// Swift's `String` equality is canonical equivalence, so "é" (U+00E9) and "e\u{301}" are
/// equal strings, yet LevelDB stores them as two records. Every in-memory structure that
/// stands for records (the object cache, the read-through fetch table) is keyed by this
/// type, so it never mistakes one record for the other.
///
/// A key of a named collection also carries the collection's prefix (see ``KeySpace``), so
/// equal keys of two collections are two records here too. Prefixes are prefix-free, so two
/// `ByteKey`s are equal exactly when their physical LevelDB keys are.
struct ByteKey: Hashable, Sendable {
    let string: String
    /// The key space's prefix: empty (no allocation) for the default collection.
    let prefix: [UInt8]

    @inline(__always)
    init(_ string: String, in space: KeySpace = .default) {
        self.string = string
        self.prefix = space.prefix
    }

    @inline(__always)
    static func == (lhs: ByteKey, rhs: ByteKey) -> Bool {
        guard lhs.prefix == rhs.prefix else { return false }
        let count = lhs.string.utf8.count
        guard count == rhs.string.utf8.count else { return false }
        guard count > 0 else { return true }
        // memcmp over the contiguous UTF-8 of native strings: faster than comparing byte by
        // byte, near String's own equality.
        let compared: Bool?? = lhs.string.utf8.withContiguousStorageIfAvailable { mine in
            rhs.string.utf8.withContiguousStorageIfAvailable { theirs in
                memcmp(mine.baseAddress!, theirs.baseAddress!, count) == 0
            }
        }
        return (compared ?? nil) ?? lhs.string.utf8.elementsEqual(rhs.string.utf8)
    }

    @inline(__always)
    func hash(into hasher: inout Hasher) {
        if !prefix.isEmpty { prefix.withUnsafeBytes { hasher.combine(bytes: $0) } }
        // Native Swift strings keep their UTF-8 contiguously, so this hashes the bytes in
        // one call, as String's own hash does for ASCII.
        let hashed: Void? = string.utf8.withContiguousStorageIfAvailable { bytes in
            hasher.combine(bytes: UnsafeRawBufferPointer(bytes))
        }
        if hashed == nil {
            // A bridged string: made native (contiguous) first, so equal keys hash alike.
            var native = string
            native.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        }
    }
}
