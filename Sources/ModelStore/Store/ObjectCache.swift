/// An in-memory LRU cache of decoded models, shared by every store instance of one database.
///
/// A hit skips both LevelDB and the codec. Every write path invalidates the keys it touches,
/// and a read only inserts what it decoded if no write happened since it started reading
/// (the `generation` check), so a slow reader can never put back a value a writer replaced.
/// Expiry is still checked on every hit from the stored header times. Keys are compared by
/// their bytes (``ByteKey``), as LevelDB compares them: canonically equivalent spellings of
/// a key are different records and different cache entries.
final class ObjectCache: @unchecked Sendable {
    // @unchecked: all state is guarded by `lock`. Values are only cached for non-class
    // model types (see `isCacheable`), so handing the same value to several threads copies it.

    struct Item {
        var value: Any
        var header: RecordHeader
        var byteCount: Int
        /// The record's metadata section, so an entry served from the cache still has it.
        var metadata: StoredMetadata?
    }

    private struct Node {
        var key: ByteKey
        var item: Item
        var newer: Int  // index of the next more recently used node, or -1
        var older: Int  // index of the next less recently used node, or -1
    }

    let limit: Int
    private let lock = Lock()
    private var index: [ByteKey: Int] = [:]
    private var nodes: [Node] = []
    private var freeSlots: [Int] = []
    private var newest = -1
    private var oldest = -1
    private var generation: UInt64 = 0

    init(limit: Int) {
        precondition(limit > 0)
        self.limit = limit
        index.reserveCapacity(min(limit, 1 << 16))
    }

    /// Whether models of this type may be cached: classes are not, because one shared
    /// instance would be visible to every reader at once.
    static func isCacheable<Value>(_ type: Value.Type) -> Bool {
        !(type is AnyObject.Type)
    }

    /// The write generation, read before a LevelDB read whose result may be inserted.
    var currentGeneration: UInt64 {
        lock.withLock { generation }
    }

    func lookup(_ key: String, in space: KeySpace = .default) -> Item? {
        let key = ByteKey(key, in: space)
        return lock.withLock {
            guard let slot = index[key] else { return nil }
            moveToNewest(slot)
            return nodes[slot].item
        }
    }

    /// Inserts a decoded value unless a write happened after `generation` was read.
    func insert(_ key: String, in space: KeySpace = .default, _ item: Item, ifGeneration expected: UInt64) {
        let key = ByteKey(key, in: space)
        lock.withLock {
            guard generation == expected else { return }
            if let slot = index[key] {
                nodes[slot].item = item
                moveToNewest(slot)
                return
            }
            if index.count >= limit, oldest >= 0 {
                remove(slot: oldest)
            }
            let node = Node(key: key, item: item, newer: -1, older: newest)
            let slot: Int
            if let free = freeSlots.popLast() {
                nodes[free] = node
                slot = free
            } else {
                nodes.append(node)
                slot = nodes.count - 1
            }
            if newest >= 0 { nodes[newest].newer = slot }
            newest = slot
            if oldest < 0 { oldest = slot }
            index[key] = slot
        }
    }

    func invalidate(_ key: String, in space: KeySpace = .default) {
        let key = ByteKey(key, in: space)
        lock.withLock {
            generation &+= 1
            if let slot = index[key] { remove(slot: slot) }
        }
    }

    func invalidate<Keys: Sequence<String>>(_ keys: Keys, in space: KeySpace = .default) {
        lock.withLock {
            generation &+= 1
            for key in keys {
                if let slot = index[ByteKey(key, in: space)] { remove(slot: slot) }
            }
        }
    }

    /// Invalidates keys each in its own space (a batch across collections); `spaces` nil
    /// means all in the default one.
    func invalidate(_ keys: [String], spaces: [KeySpace]?) {
        guard let spaces else { return invalidate(keys) }
        lock.withLock {
            generation &+= 1
            for (key, space) in zip(keys, spaces) {
                if let slot = index[ByteKey(key, in: space)] { remove(slot: slot) }
            }
        }
    }

    /// Invalidates the keys starting with `prefix` in `space` only.
    func invalidate(prefix: String, in space: KeySpace = .default) {
        lock.withLock {
            generation &+= 1
            for (key, slot) in index where key.prefix == space.prefix && key.string.utf8.starts(with: prefix.utf8) {
                remove(slot: slot)
            }
        }
    }

    func removeAll() {
        lock.withLock {
            generation &+= 1
            index.removeAll(keepingCapacity: true)
            nodes.removeAll(keepingCapacity: true)
            freeSlots.removeAll(keepingCapacity: true)
            newest = -1
            oldest = -1
        }
    }

    var count: Int {
        lock.withLock { index.count }
    }

    // MARK: - List maintenance (lock held)

    private func unlink(_ slot: Int) {
        let node = nodes[slot]
        if node.newer >= 0 { nodes[node.newer].older = node.older } else { newest = node.older }
        if node.older >= 0 { nodes[node.older].newer = node.newer } else { oldest = node.newer }
    }

    private func moveToNewest(_ slot: Int) {
        guard slot != newest else { return }
        unlink(slot)
        nodes[slot].older = newest
        nodes[slot].newer = -1
        if newest >= 0 { nodes[newest].newer = slot }
        newest = slot
        if oldest < 0 { oldest = slot }
    }

    private func remove(slot: Int) {
        unlink(slot)
        index[nodes[slot].key] = nil
        nodes[slot].item.value = ()  // drop the model now rather than when the slot is reused
        freeSlots.append(slot)
    }
}
