/// The coding keys from the top-level value down to the one being encoded or decoded.
///
/// Shared by ``BinaryEncodingState`` and ``BinaryDecodingState``. Containers only record the
/// key at their depth when they enter a value, and the full path is only built when an error
/// needs it, so the hot path is one array store per value.
struct BinaryCodingPath {
    private var keys: [any CodingKey] = []

    /// The path down to `depth`.
    func prefix(depth: Int) -> [any CodingKey] {
        Array(keys.prefix(depth))
    }

    /// The path down to `depth`, followed by `key`.
    func prefix(depth: Int, appending key: some CodingKey) -> [any CodingKey] {
        var result = prefix(depth: depth)
        result.append(key)
        return result
    }

    /// Records that the value being entered at `depth` is stored under `key`.
    mutating func enter(_ key: some CodingKey, atDepth depth: Int) {
        let count = keys.count
        if count == depth + 1 {
            // The common case, a sibling of the previous value: overwrite in place rather than remove and append.
            keys[depth] = key
            return
        }
        if count > depth {
            keys.removeSubrange(depth...)
        } else if count == 0 {
            // One allocation that fits typical models, instead of regrowing at every new level.
            keys.reserveCapacity(16)
        }
        keys.append(key)
    }
}
