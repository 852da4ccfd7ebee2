/// A keyed container's entry, as found by a lookup.
struct BinaryKeyedEntry {
    var keyStart: Int
    var keyLength: Int
    var value: Int
    /// Where the next entry starts (or the body ends).
    var next: Int
}

extension BinaryDecodingState {
    /// Containers with more entries than this get a hash index on their first out-of-order lookup; below it a
    /// linear scan over the key bytes is faster than hashing.
    static let indexThreshold = 16

    /// Finds where the value stored under `key` starts, or nil if it is absent.
    ///
    /// Models nearly always read keys in the order they wrote them, so the entry after the previous value read
    /// (see ``rememberEntryEnd(_:in:depth:)``) is tried first and usually matches without stepping over anything;
    /// key bytes are compared in place, so no String is built. A damaged entry also reads as "not found"; callers
    /// validate the container on a miss to tell the two apart.
    @inline(__always)
    func valuePosition(of key: some CodingKey, in bounds: BinaryReader.ContainerBounds, depth: Int) -> Int? {
        let name = key.stringValue
        // Native and small strings (every synthesized key) hand out their UTF-8 in place; bridged ones are copied.
        guard let position = name.utf8.withContiguousStorageIfAvailable({
            valuePosition(of: $0, in: bounds, depth: depth)
        }) else {
            return valuePosition(ofBridged: name, in: bounds, depth: depth)
        }
        return position
    }

    @inline(never)
    private func valuePosition(ofBridged name: String, in bounds: BinaryReader.ContainerBounds, depth: Int) -> Int? {
        var copy = name
        return copy.withUTF8 { valuePosition(of: $0, in: bounds, depth: depth) }
    }

    /// ``valuePosition(of:in:depth:)`` for a key given as its UTF-8 bytes.
    @inline(never)
    func valuePosition(
        of wanted: UnsafeBufferPointer<UInt8>,
        in bounds: BinaryReader.ContainerBounds,
        depth: Int
    ) -> Int? {
        if let next = hints.nextEntry(depth: depth, bodyStart: bounds.bodyStart),
            let position = reader.valueStart(ofEntryAt: next, limit: bounds.bodyEnd, ifKeyIs: wanted)
        {
            return position
        }
        return searchValuePosition(of: wanted, in: bounds)
    }

    /// The lookup for keys read out of order: a scan of a small container, or its hash index.
    @inline(never)
    private func searchValuePosition(of wanted: UnsafeBufferPointer<UInt8>, in bounds: BinaryReader.ContainerBounds)
        -> Int?
    {
        if bounds.count > Self.indexThreshold {
            guard let index = indexes[bounds.bodyStart] ?? buildIndex(for: bounds) else { return nil }
            var candidates = index.candidates(for: BinaryReader.hash(UnsafeRawBufferPointer(wanted)))
            while let start = candidates.next() {
                if let entry = entry(at: start, bodyEnd: bounds.bodyEnd),
                    reader.keyEquals(start: entry.keyStart, length: entry.keyLength, wanted)
                {
                    return entry.value
                }
            }
            return nil
        }
        var cursor = bounds.bodyStart
        while cursor < bounds.bodyEnd, let entry = entry(at: cursor, bodyEnd: bounds.bodyEnd) {
            if reader.keyEquals(start: entry.keyStart, length: entry.keyLength, wanted) {
                return entry.value
            }
            cursor = entry.next
        }
        return nil
    }

    /// Records that a value of the keyed container at `depth` ended at `next`, where the next entry starts, so the
    /// next lookup there tries that entry first. Containers call this after reading a value, when its end is known
    /// for free, and when they open (so the first lookup tries the first entry).
    @inline(__always)
    func rememberEntryEnd(_ next: Int, in bounds: BinaryReader.ContainerBounds, depth: Int) {
        hints.remember(depth: depth, bodyStart: bounds.bodyStart, nextEntry: next)
    }

    /// Calls `body` with each entry of a keyed container, in stored order, stopping at a damaged entry.
    func forEachEntry(in bounds: BinaryReader.ContainerBounds, _ body: (BinaryKeyedEntry) -> Void) {
        var cursor = bounds.bodyStart
        while cursor < bounds.bodyEnd, let entry = entry(at: cursor, bodyEnd: bounds.bodyEnd) {
            body(entry)
            cursor = entry.next
        }
    }

    func entry(at start: Int, bodyEnd: Int) -> BinaryKeyedEntry? {
        var cursor = start
        guard let key = try? reader.key(at: &cursor, limit: bodyEnd),
            let next = try? reader.skip(at: cursor, limit: bodyEnd)
        else { return nil }
        return BinaryKeyedEntry(keyStart: key.start, keyLength: key.length, value: cursor, next: next)
    }

    /// Indexes a container whose entries check out; returns nil for a damaged one, whose count cannot be trusted to
    /// size the table.
    private func buildIndex(for bounds: BinaryReader.ContainerBounds) -> BinaryKeyIndex? {
        guard (try? checkEntries(of: bounds)) != nil else { return nil }
        var index = BinaryKeyIndex(capacityFor: bounds.count)
        var entryStart = bounds.bodyStart
        forEachEntry(in: bounds) { entry in
            index.insert(entryStart, hash: reader.keyHash(start: entry.keyStart, length: entry.keyLength))
            entryStart = entry.next
        }
        indexes[bounds.bodyStart] = index
        return index
    }
}

/// An open-addressing hash table from key hashes to entry positions for one large keyed container.
///
/// It stores positions, not Strings, so building it allocates two arrays and no per-key objects. Its size is
/// proportional to the container's validated entry count, which is bounded by the container's byte length.
struct BinaryKeyIndex {
    private var hashes: [UInt64]
    /// Entry start positions; -1 marks an empty slot.
    private var positions: [Int]
    private let mask: Int

    init(capacityFor count: Int) {
        var capacity = 16
        while capacity < count * 2 {
            capacity *= 2
        }
        hashes = Array(repeating: 0, count: capacity)
        positions = Array(repeating: -1, count: capacity)
        mask = capacity - 1
    }

    mutating func insert(_ position: Int, hash: UInt64) {
        var slot = Int(truncatingIfNeeded: hash) & mask
        while positions[slot] >= 0 {
            slot = (slot + 1) & mask
        }
        hashes[slot] = hash
        positions[slot] = position
    }

    /// The entry positions whose key has this hash, in insertion order (so the first stored duplicate wins).
    func candidates(for hash: UInt64) -> Candidates {
        Candidates(index: self, hash: hash, slot: Int(truncatingIfNeeded: hash) & mask)
    }

    struct Candidates: IteratorProtocol {
        let index: BinaryKeyIndex
        let hash: UInt64
        var slot: Int

        mutating func next() -> Int? {
            // The table is at most half full, so every probe sequence reaches an empty slot.
            while index.positions[slot] >= 0 {
                defer { slot = (slot + 1) & index.mask }
                if index.hashes[slot] == hash {
                    return index.positions[slot]
                }
            }
            return nil
        }
    }
}
