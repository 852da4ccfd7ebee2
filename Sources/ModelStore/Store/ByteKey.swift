/// A record key that is equal to another, and hashes, by its UTF-8 bytes: the way LevelDB
/// compares keys.
///
/// Swift's `String` equality is canonical equivalence, so "é" (U+00E9) and "e\u{301}" are
/// equal strings, yet LevelDB stores them as two records. Every in-memory structure that
/// stands for records (the object cache, the read-through fetch table) is keyed by this
/// type, so it never mistakes one record for the other.
struct ByteKey: Hashable, Sendable {
    let string: String

    @inline(__always)
    init(_ string: String) {
        self.string = string
    }

    @inline(__always)
    static func == (lhs: ByteKey, rhs: ByteKey) -> Bool {
        lhs.string.utf8.count == rhs.string.utf8.count && lhs.bytesEqual(rhs)
    }

    @inline(__always)
    func hash(into hasher: inout Hasher) {
        // Native Swift strings keep their UTF-8 contiguously, so this hashes the bytes in
        // one call, as String's own hash does for ASCII (measured: no slower on a cache hit).
        let hashed: Void? = string.utf8.withContiguousStorageIfAvailable { bytes in
            hasher.combine(bytes: UnsafeRawBufferPointer(bytes))
        }
        if hashed == nil {
            // A bridged string: made native (contiguous) first, so equal keys hash alike.
            var native = string
            native.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        }
    }

    private func bytesEqual(_ other: ByteKey) -> Bool {
        let compared = string.utf8.withContiguousStorageIfAvailable { mine in
            other.string.utf8.withContiguousStorageIfAvailable { theirs in
                mine.elementsEqual(theirs)
            }
        }
        return (compared ?? nil) ?? string.utf8.elementsEqual(other.string.utf8)
    }
}
