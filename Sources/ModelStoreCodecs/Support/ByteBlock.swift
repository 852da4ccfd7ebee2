import Foundation

/// The `malloc` block a coder's writer keeps its output in (``BinaryWriter``, ``JSONByteWriter``): where it starts
/// and how much it holds. The writers store into it themselves; this is the allocation, growth and reuse they share.
///
/// A plain block rather than an `[UInt8]`: every `Array.append` pays for a uniqueness and a capacity check and
/// cannot be told to skip them, while a write into a block is one capacity compare and a store. Bound to `UInt8`,
/// so that it can be handed to `Array` as bytes; raw stores of other types stay valid.
///
/// It is a struct for speed but owns its memory, so exactly one copy may be used, and that copy must free it once
/// (``deallocate()``), or hand it on.
struct ByteBlock {
    private(set) var base: UnsafeMutableRawPointer
    private(set) var capacity: Int

    /// The first block's size: typical records fit, larger ones grow it geometrically.
    static let initialCapacity = 512

    /// The largest block kept for the next value; a larger one is swapped for a small one, so that a reused writer
    /// does not hold on to the memory of one unusually large record.
    static let maximumKeptCapacity = 64 * 1024

    init() {
        capacity = ByteBlock.initialCapacity
        base = ByteBlock.allocate(capacity)
    }

    private static func allocate(_ byteCount: Int) -> UnsafeMutableRawPointer {
        guard let block = malloc(byteCount) else { fatalError("ModelStoreCodecs: out of memory") }
        block.bindMemory(to: UInt8.self, capacity: byteCount)
        return block
    }

    /// Frees the memory; the block must not be used afterwards.
    func deallocate() {
        free(base)
    }

    /// Makes the block ready for the next value: a new small one if this one was handed on (`wasTaken`, it is then
    /// someone else's to free) or grew past ``maximumKeptCapacity``, else this one.
    mutating func prepareForReuse(wasTaken: Bool = false) {
        guard wasTaken || capacity > ByteBlock.maximumKeptCapacity else { return }
        if !wasTaken { free(base) }
        capacity = ByteBlock.initialCapacity
        base = ByteBlock.allocate(capacity)
    }

    /// Makes sure `length` more bytes fit after the first `count`.
    @inline(__always)
    mutating func reserve(_ length: Int, after count: Int) {
        if _slowPath(capacity &- count < length) {
            grow(toFit: length, after: count)
        }
    }

    @inline(never)
    private mutating func grow(toFit length: Int, after count: Int) {
        let (needed, overflow) = count.addingReportingOverflow(length)
        precondition(!overflow, "ModelStoreCodecs: value too large")
        var newCapacity = capacity
        while newCapacity < needed {
            newCapacity = newCapacity <= Int.max / 2 ? newCapacity * 2 : needed
        }
        guard let block = realloc(base, newCapacity) else { fatalError("ModelStoreCodecs: out of memory") }
        block.bindMemory(to: UInt8.self, capacity: newCapacity)
        base = block
        capacity = newCapacity
    }
}
