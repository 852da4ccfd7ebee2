/// An open-addressing hash table from type metadata pointers to a value, built once: how the codecs find the fast
/// path for a runtime type.
///
/// Every generic value an encoder or decoder sees is looked up here, most of them types without an entry (every
/// nested model), so a miss must be as cheap as a hit: one multiply, a probe or two, and no metadata accessor
/// calls, which comparing `type == Date.self` candidate by candidate would make.
struct TypeTable<Value: Sendable>: Sendable {
    /// Metadata addresses; 0 marks an empty slot (no metadata lives at address 0).
    private let keys: [UInt]
    private let values: [Value]
    private let missing: Value
    private let mask: Int

    /// - Parameters:
    ///   - entries: The types and their values; each type at most once.
    ///   - missing: What ``value(for:)`` returns for a type without an entry.
    init(_ entries: [(Any.Type, Value)], missing: Value) {
        // At most a quarter full, so a miss usually ends at the first empty slot.
        var capacity = 16
        while capacity < entries.count * 4 {
            capacity *= 2
        }
        var keys = [UInt](repeating: 0, count: capacity)
        var values = [Value](repeating: missing, count: capacity)
        mask = capacity - 1
        for (type, value) in entries {
            let key = TypeTable.key(type)
            var slot = TypeTable.slot(for: key, mask: mask)
            while keys[slot] != 0 {
                slot = (slot + 1) & mask
            }
            keys[slot] = key
            values[slot] = value
        }
        self.keys = keys
        self.values = values
        self.missing = missing
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

    /// The value stored for `type`, or the table's `missing` value.
    @inline(__always)
    func value(for type: Any.Type) -> Value {
        let key = TypeTable.key(type)
        var slot = TypeTable.slot(for: key, mask: mask)
        while true {
            let candidate = keys[slot]
            if candidate == key { return values[slot] }
            if candidate == 0 { return missing }
            slot = (slot + 1) & mask
        }
    }
}
