/// The coding keys from the top-level value down to the one being encoded or decoded.
///
/// Shared by ``BinaryEncodingState`` and ``BinaryDecodingState``. Containers only record the key at their depth when
/// they enter a value, and the full path is only built when an error or a model asks for it, so the hot path is one
/// store per nested value. Keys of small plain types (every synthesized `CodingKeys` enum) are recorded as their
/// bytes and their type, which takes no value-witness calls; recording them as existentials took about 200
/// instructions each. Other keys are recorded as existentials.
struct BinaryCodingPath {
    /// The key at one depth. A plain struct, so that recording one is a few stores.
    private struct Entry {
        /// The bytes of a plain key.
        var bytes: UInt64
        /// The type of a plain key, to rebuild it from its bytes; nil for a key kept in `boxedKeys`, or for none.
        var type: (any CodingKey.Type)?
    }

    /// One entry per depth; those at `count` and beyond are stale and never read. A state that serves many calls
    /// keeps the array's storage.
    private var entries: [Entry] = []
    /// Keys that are not plain, by depth; only touched when a model uses such keys (dictionary keys, say).
    private var boxedKeys: [(any CodingKey)?] = []
    /// How many entries belong to the current call.
    private var count = 0

    /// The path down to `depth`.
    func prefix(depth: Int) -> [any CodingKey] {
        let length = Swift.min(depth, count)
        var keys: [any CodingKey] = []
        keys.reserveCapacity(length)
        for index in 0..<length {
            if let type = entries[index].type {
                keys.append(Self.rebuild(type, from: entries[index].bytes))
            } else if index < boxedKeys.count, let key = boxedKeys[index] {
                keys.append(key)
            }
        }
        return keys
    }

    /// The path down to `depth`, followed by `key`.
    func prefix(depth: Int, appending key: some CodingKey) -> [any CodingKey] {
        var result = prefix(depth: depth)
        result.append(key)
        return result
    }

    /// Forgets every key, so that a state serving several calls keeps no value of an earlier call alive.
    mutating func removeAll() {
        if !boxedKeys.isEmpty {
            boxedKeys.removeAll(keepingCapacity: true)
        }
        count = 0
    }

    /// Records that the value being entered at `depth` is stored under `key`; keys recorded deeper become stale.
    @inline(__always)
    mutating func enter<Key: CodingKey>(_ key: Key, atDepth depth: Int) {
        let entry: Entry
        if _isPOD(Key.self), let bytes = Self.bytes(of: key) {
            entry = Entry(bytes: bytes, type: Key.self)
        } else {
            entry = Entry(bytes: 0, type: nil)
            recordBoxed(key, atDepth: depth)
        }
        if _fastPath(depth <= count && depth < entries.count) {
            // The common case: a sibling of the previous value, or the first value one level down.
            entries[depth] = entry
        } else {
            enter(entry, atUnusualDepth: depth)
        }
        count = depth + 1
    }

    @inline(never)
    private mutating func recordBoxed(_ key: any CodingKey, atDepth depth: Int) {
        while boxedKeys.count <= depth {
            boxedKeys.append(nil)
        }
        boxedKeys[depth] = key
    }

    @inline(never)
    private mutating func enter(_ entry: Entry, atUnusualDepth depth: Int) {
        // Depths are entered one level at a time, so gaps do not happen; should one, it reads as no key.
        for gap in Swift.min(count, entries.count)..<Swift.min(depth, entries.count) {
            entries[gap] = Entry(bytes: 0, type: nil)
            if gap < boxedKeys.count {
                boxedKeys[gap] = nil
            }
        }
        while entries.count < depth {
            entries.append(Entry(bytes: 0, type: nil))
        }
        if depth < entries.count {
            entries[depth] = entry
        } else {
            entries.append(entry)
        }
    }

    /// The bytes of a plain key of at most eight bytes, or nil if it is larger.
    @inline(__always)
    private static func bytes<Key>(of key: Key) -> UInt64? {
        switch MemoryLayout<Key>.size {
        case 0: return 0
        case 1: return UInt64(unsafeBitCast(key, to: UInt8.self))
        case 2: return UInt64(unsafeBitCast(key, to: UInt16.self))
        case 4: return UInt64(unsafeBitCast(key, to: UInt32.self))
        case 8: return unsafeBitCast(key, to: UInt64.self)
        default: return nil
        }
    }

    /// The key whose bytes ``bytes(of:)`` recorded; `Key` is a plain type of at most eight bytes.
    private static func rebuild<Key: CodingKey>(_: Key.Type, from bytes: UInt64) -> any CodingKey {
        // The mirror image of bytes(of:), so it holds whatever the byte order.
        switch MemoryLayout<Key>.size {
        case 0: return unsafeBitCast((), to: Key.self)
        case 1: return unsafeBitCast(UInt8(truncatingIfNeeded: bytes), to: Key.self)
        case 2: return unsafeBitCast(UInt16(truncatingIfNeeded: bytes), to: Key.self)
        case 4: return unsafeBitCast(UInt32(truncatingIfNeeded: bytes), to: Key.self)
        default: return unsafeBitCast(bytes, to: Key.self)
        }
    }
}
