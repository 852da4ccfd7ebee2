/// The coding keys from the top-level value down to the one being encoded or decoded.
///
/// Shared by ``BinaryEncodingState`` and ``BinaryDecodingState``. Containers only record the
/// key at their depth when they enter a value, and the full path is only built when an error
/// needs it, so the hot path is one store per value. The first few levels are kept inline, so
/// the path of a typical model never allocates.
struct BinaryCodingPath {
    private typealias Slot = (any CodingKey)?

    /// Keys at depths 0 to 3.
    private var inline: (Slot, Slot, Slot, Slot) = (nil, nil, nil, nil)
    /// Keys at depth 4 and deeper.
    private var overflow: [any CodingKey] = []
    /// How many keys are recorded; those past a container's depth may be stale.
    private var count = 0

    private static let inlineCount = 4

    /// The path down to `depth`.
    func prefix(depth: Int) -> [any CodingKey] {
        let length = Swift.min(depth, count)
        var keys: [any CodingKey] = []
        keys.reserveCapacity(length)
        for index in 0..<length {
            if let key = key(at: index) {
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

    private func key(at index: Int) -> (any CodingKey)? {
        switch index {
        case 0: return inline.0
        case 1: return inline.1
        case 2: return inline.2
        case 3: return inline.3
        default:
            let overflowIndex = index - Self.inlineCount
            return overflowIndex < overflow.count ? overflow[overflowIndex] : nil
        }
    }

    /// Forgets every key, so that a state serving several calls keeps no value of an earlier call alive.
    mutating func removeAll() {
        // Only the slots a call used hold keys; typical models use one or two.
        if count > 0 { inline.0 = nil }
        if count > 1 { inline.1 = nil }
        if count > 2 { inline.2 = nil }
        if count > 3 { inline.3 = nil }
        if !overflow.isEmpty { overflow = [] }
        count = 0
    }

    /// Records that the value being entered at `depth` is stored under `key`; keys recorded deeper become stale.
    mutating func enter(_ key: some CodingKey, atDepth depth: Int) {
        switch depth {
        case 0: inline.0 = key
        case 1: inline.1 = key
        case 2: inline.2 = key
        case 3: inline.3 = key
        default:
            let index = depth - Self.inlineCount
            if index < overflow.count {
                // The common case, a sibling of the previous value: overwrite in place.
                overflow[index] = key
                if overflow.count > index + 1 {
                    overflow.removeSubrange((index + 1)...)
                }
            } else {
                // Depths are entered one level at a time, so this appends right after the last key.
                overflow.append(key)
            }
        }
        count = depth + 1
    }
}
