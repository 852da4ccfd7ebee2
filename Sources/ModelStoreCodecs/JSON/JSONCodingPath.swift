/// The coding keys from the top-level value down to the one being decoded, and which value each key led to.
///
/// A container records the key at its depth only when it hands a nested value to a model's `init(from:)`, and the
/// `[CodingKey]` array is only built when someone asks for it, so the hot path is a few stores per nested value.
/// The first four levels are kept inline, so a typical model's path never allocates.
///
/// Models may keep containers and use them out of order, so entries can go stale. Two rules keep answers exact:
/// an entry counts only below `count` (entering a value drops everything deeper), and an entry is `valid` only if,
/// when it was written, the entry above it was valid and led to the container that wrote it. A valid entry below
/// `count` therefore sits on a chain of valid entries back to the root, each the true parent of the next (tape
/// values have one parent each). Containers ask ``isCurrent(value:depth:)`` before trusting the path; when it says
/// no, the decode is redone by Foundation rather than answer with a wrong path.
struct JSONCodingPath {
    private struct Slot {
        var key: (any CodingKey)?
        var value: UInt32
        var valid: Bool

        static var empty: Slot { Slot(key: nil, value: 0, valid: false) }
    }

    private var inline: (Slot, Slot, Slot, Slot) = (.empty, .empty, .empty, .empty)
    private var overflow: [Slot] = []
    /// How many levels are recorded.
    private var count = 0

    private static let inlineCount = 4

    /// Records that the value at tape index `value` is stored under `key` in the container at `depth`, whose own
    /// value is at tape index `parent`; entries deeper than `depth` are dropped.
    mutating func enter(_ key: some CodingKey, atDepth depth: Int, value: UInt32, parent: UInt32) {
        let slot = Slot(key: key, value: value, valid: isCurrent(value: parent, depth: depth))
        switch depth {
        case 0: inline.0 = slot
        case 1: inline.1 = slot
        case 2: inline.2 = slot
        case 3: inline.3 = slot
        default:
            let index = depth &- Self.inlineCount
            // A container at `depth` exists only if its own value was entered at `depth - 1` before, so the array
            // already reaches `index - 1`. Padding with invalid entries keeps reads in bounds regardless.
            while overflow.count < index {
                overflow.append(.empty)
            }
            if index < overflow.count {
                overflow[index] = slot
            } else {
                overflow.append(slot)
            }
        }
        count = depth &+ 1
    }

    /// Whether nothing has been entered since the path was made: then it holds no keys, and the state can keep it
    /// for the next call as it is.
    var isEmpty: Bool { count == 0 }

    /// Whether the entries down to `depth` are the keys that lead to the value at tape index `value`.
    func isCurrent(value: UInt32, depth: Int) -> Bool {
        guard depth > 0 else { return true }
        guard depth <= count else { return false }
        let slot = slot(at: depth &- 1)
        return slot.valid && slot.value == value
    }

    /// The keys down to `depth`, as recorded.
    func keys(depth: Int) -> [any CodingKey] {
        let length = Swift.min(depth, count)
        var keys: [any CodingKey] = []
        keys.reserveCapacity(length)
        for index in 0..<length {
            if let key = slot(at: index).key {
                keys.append(key)
            }
        }
        return keys
    }

    private func slot(at index: Int) -> Slot {
        switch index {
        case 0: return inline.0
        case 1: return inline.1
        case 2: return inline.2
        case 3: return inline.3
        default: return overflow[index &- Self.inlineCount]
        }
    }
}
