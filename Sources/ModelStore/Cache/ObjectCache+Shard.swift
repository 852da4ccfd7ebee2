// MARK: - A shard's entries
//
// The state of one shard of ``ObjectCache``: its index and slots, the CLOCK sweep over them, and
// the object readers reach it through. What may touch it, and when, is in ObjectCache+ShardAccess.swift.

extension ObjectCache {
    /// One shard's entries, in its ``ShardBox``.
    struct Shard {
        var index: [ByteKey: Int] = [:]
        var slots: [Slot] = []
        /// One flag per slot, set by a hit and cleared by the eviction sweep passing over it;
        /// `referencedCapacity` bytes, freed by the box. Beside the slots, not in them: readers
        /// set it beside each other with an atomic store, and a store into the slots' storage
        /// made the compiler retain that storage around every hit.
        var referenced: UnsafeMutablePointer<UInt8> = .allocate(capacity: 0)
        var referencedCapacity = 0
        var freeSlots: [Int] = []
        /// The next slot the CLOCK sweep looks at.
        var hand = 0
        /// Bumped by every invalidation of a key in this shard (and by removeAll).
        var generation: UInt64 = 0
        /// The items removed or replaced by the writer under way, dropped by ``ObjectCache/withShard(_:_:)``
        /// once the shard is unlocked: dropping a model may run its own code (a deinit of a class it
        /// holds), which may read or write the cache, and so this very shard.
        var released: [Item] = []

        struct Slot {
            var key: ByteKey?
            /// The entry; ``Item/vacant`` in a free slot. Not optional, so that a hit reads the
            /// parts it needs in place (an optional item was copied whole to be unwrapped).
            var item: Item = .vacant
        }

        /// Removes the entry in `slot`; returns 1 so callers can sum what they removed.
        @discardableResult
        mutating func remove(slot: Int) -> Int {
            if let key = slots[slot].key { index[key] = nil }
            // Drop the model now rather than when the slot is reused, but outside the lock.
            released.append(slots[slot].item)
            slots[slot] = Slot()
            referenced[slot] = 0
            freeSlots.append(slot)
            return 1
        }

        /// Evicts one entry chosen by CLOCK; false if the shard is empty.
        mutating func evictOne() -> Bool {
            guard !index.isEmpty else { return false }
            // Ends within two turns: the first clears every flag it passes.
            while true {
                if hand >= slots.count { hand = 0 }
                let slot = hand
                hand += 1
                guard slots[slot].key != nil else { continue }
                if referenced[slot] != 0 {
                    referenced[slot] = 0
                    continue
                }
                remove(slot: slot)
                return true
            }
        }

        mutating func insert(_ key: ByteKey, _ item: Item) {
            // A new entry starts unreferenced: it survives until the sweep's next turn reaches
            // it, and past that only if it was read again.
            let slot = Slot(key: key, item: item)
            if let free = freeSlots.popLast() {
                slots[free] = slot
                index[key] = free
            } else {
                slots.append(slot)
                if slots.count > referencedCapacity { growReferenced() }
                referenced[slots.count - 1] = 0
                index[key] = slots.count - 1
            }
        }

        /// Doubles the referenced flags' room (at least 16), keeping the flags.
        private mutating func growReferenced() {
            let capacity = max(16, referencedCapacity * 2)
            let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
            grown.initialize(repeating: 0, count: capacity)
            grown.update(from: referenced, count: referencedCapacity)
            referenced.deallocate()
            referenced = grown
            referencedCapacity = capacity
        }
    }

    /// A shard's state in an object of its own, which readers reach unretained and read in
    /// place: `@exclusivity(unchecked)`, because the readers' counters, not Swift's access
    /// checks, keep a writer from changing it while anyone reads (and dynamic checks cost each
    /// read two calls). A struct in the shard's block was copied (its dictionary and slots
    /// retained) by every read that did not take it `inout`, and `inout` is a write to the
    /// thread sanitizer.
    final class ShardBox {
        @exclusivity(unchecked) var state = Shard()

        deinit {
            state.referenced.deallocate()
        }
    }
}
