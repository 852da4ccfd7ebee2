/// For each coding-path depth, the keyed container read there last and where its next unread entry starts.
///
/// Models nearly always read keys in the order they wrote them, so the entry after the previous value read is where
/// the next key usually is (see ``BinaryDecodingState/valuePosition(of:in:depth:)``). A lookup and an update happen
/// for every keyed value, so the hints live in a plain block of memory indexed by depth: no bounds or uniqueness
/// checks as with an array, and ``removeAll()`` is one store, so a state that serves many decode calls keeps its
/// block.
///
/// It owns its memory but is a struct for speed; ``BinaryDecodingState``, its only owner, calls ``deallocate()``.
struct BinaryKeyHints {
    private struct Hint {
        /// Where the container's body starts, which identifies it within one payload.
        var bodyStart: Int
        var nextEntry: Int
    }

    private var storage: UnsafeMutablePointer<Hint>
    private var capacity: Int
    /// Hints at depths below this were written during the current decode call (possibly with `bodyStart` -1, which
    /// matches no container); the others are left over from earlier calls and must not be read.
    private var used = 0

    init() {
        // Deep enough for nearly every model; deeper ones grow the block once.
        capacity = 16
        storage = .allocate(capacity: capacity)
    }

    func deallocate() {
        storage.deallocate()
    }

    /// Forgets every hint, so that positions from one payload are never tried in the next.
    mutating func removeAll() {
        used = 0
    }

    /// Where the next entry of the container whose body starts at `bodyStart` probably is, if it was read at
    /// `depth` before.
    @inline(__always)
    func nextEntry(depth: Int, bodyStart: Int) -> Int? {
        guard depth >= 0, depth < used else { return nil }
        let hint = storage[depth]
        return hint.bodyStart == bodyStart ? hint.nextEntry : nil
    }

    /// Records that the next entry of the container whose body starts at `bodyStart`, read at `depth`, starts at
    /// `nextEntry`.
    @inline(__always)
    mutating func remember(depth: Int, bodyStart: Int, nextEntry: Int) {
        if _fastPath(depth >= 0 && depth < used) {
            storage[depth] = Hint(bodyStart: bodyStart, nextEntry: nextEntry)
        } else {
            extend(toDepth: depth, bodyStart: bodyStart, nextEntry: nextEntry)
        }
    }

    @inline(never)
    private mutating func extend(toDepth depth: Int, bodyStart: Int, nextEntry: Int) {
        guard depth >= 0 else { return }
        if depth >= capacity {
            // Depth is bounded by BinaryFormat.maximumDepth, so this stays small.
            var newCapacity = capacity
            while newCapacity <= depth {
                newCapacity *= 2
            }
            let newStorage = UnsafeMutablePointer<Hint>.allocate(capacity: newCapacity)
            newStorage.moveInitialize(from: storage, count: used)
            storage.deallocate()
            storage = newStorage
            capacity = newCapacity
        }
        // Only called with depth >= used: the depths in between get hints that match no container.
        while used < depth {
            (storage + used).initialize(to: Hint(bodyStart: -1, nextEntry: 0))
            used += 1
        }
        (storage + depth).initialize(to: Hint(bodyStart: bodyStart, nextEntry: nextEntry))
        used = depth + 1
    }
}
