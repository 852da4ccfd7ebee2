internal import CModelStoreAtomics

/// A 64-bit word that threads read and change without a lock, alone on its cache lines.
///
/// Each word gets its own 128-byte block (two cache lines: x86 CPUs fetch lines in pairs), so a
/// counter that one thread changes never slows another thread's unrelated data down (false
/// sharing). Every operation is sequentially consistent.
final class AtomicWord: @unchecked Sendable {
    // @unchecked: the word is only ever accessed through the atomic operations below.
    private let word: UnsafeMutablePointer<UInt64>

    /// The size and alignment that keep a word, or a lock's state, off its neighbours' cache lines.
    static let isolationBytes = 128

    init(_ value: UInt64 = 0) {
        word = UnsafeMutableRawPointer.allocate(byteCount: Self.isolationBytes, alignment: Self.isolationBytes)
            .bindMemory(to: UInt64.self, capacity: 1)
        word.initialize(to: value)
    }

    deinit {
        UnsafeMutableRawPointer(word).deallocate()
    }

    /// The current value.
    @inline(__always)
    func load() -> UInt64 {
        modelstore_atomic_load(word)
    }

    /// Sets the value.
    @inline(__always)
    func store(_ value: UInt64) {
        modelstore_atomic_store(word, value)
    }

    /// Adds `value` (wrapping); returns the value before.
    @inline(__always)
    @discardableResult
    func add(_ value: UInt64) -> UInt64 {
        modelstore_atomic_fetch_add(word, value)
    }

    /// Subtracts `value` (wrapping); returns the value before.
    @inline(__always)
    @discardableResult
    func subtract(_ value: UInt64) -> UInt64 {
        modelstore_atomic_fetch_sub(word, value)
    }

    /// Sets `bits`; returns the value before.
    @inline(__always)
    @discardableResult
    func setBits(_ bits: UInt64) -> UInt64 {
        modelstore_atomic_fetch_or(word, bits)
    }

    /// Replaces the value with `desired` if it is still `expected`; returns whether it did.
    @inline(__always)
    func compareExchange(expected: UInt64, desired: UInt64) -> Bool {
        modelstore_atomic_compare_exchange(word, expected, desired)
    }
}
