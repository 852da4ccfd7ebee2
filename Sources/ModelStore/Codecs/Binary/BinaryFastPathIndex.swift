/// An open-addressing hash table from type metadata pointers to their ``BinaryFastPath``, built once.
///
/// Every generic value the encoder or decoder sees is looked up here, most of them types without a fast path, so a
/// miss must be as cheap as a hit: one multiply, a probe or two, and no metadata accessor calls.
struct BinaryFastPathIndex: Sendable {
    /// Metadata addresses; 0 marks an empty slot (no metadata lives at address 0).
    private let keys: [UInt]
    private let kinds: [BinaryFastPath]
    private let mask: Int

    init(_ entries: [(Any.Type, BinaryFastPath)]) {
        // At most a quarter full, so probe sequences stay short.
        var capacity = 16
        while capacity < entries.count * 4 {
            capacity *= 2
        }
        var keys = [UInt](repeating: 0, count: capacity)
        var kinds = [BinaryFastPath](repeating: .none, count: capacity)
        mask = capacity - 1
        for (type, kind) in entries {
            let key = BinaryFastPathIndex.key(type)
            var slot = BinaryFastPathIndex.slot(for: key, mask: mask)
            while keys[slot] != 0 {
                slot = (slot + 1) & mask
            }
            keys[slot] = key
            kinds[slot] = kind
        }
        self.keys = keys
        self.kinds = kinds
    }

    @inline(__always)
    private static func key(_ type: Any.Type) -> UInt {
        UInt(bitPattern: ObjectIdentifier(type))
    }

    @inline(__always)
    private static func slot(for key: UInt, mask: Int) -> Int {
        // Metadata pointers are aligned and close together; a Fibonacci multiply spreads their middle bits.
        Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> 40) & mask
    }

    func kind(of type: Any.Type) -> BinaryFastPath {
        let key = BinaryFastPathIndex.key(type)
        var slot = BinaryFastPathIndex.slot(for: key, mask: mask)
        while true {
            let candidate = keys[slot]
            if candidate == key { return kinds[slot] }
            if candidate == 0 { return .none }
            slot = (slot + 1) & mask
        }
    }
}
