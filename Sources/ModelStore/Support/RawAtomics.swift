internal import CModelStoreAtomics

/// Atomic operations on words and bytes that live in memory of the caller's own layout (a shard's
/// block of ``ObjectCache``), where an ``AtomicWord``, which allocates its word, does not fit.
///
/// In a file of their own: a file that imports `CModelStoreAtomics` and makes a
/// `pthread_mutex_t()` turns that initializer into one of `CModelStoreAtomics` for the whole
/// module, and every other file that makes one then fails to compile.
enum RawAtomics {
    /// Adds `value` (sequentially consistent); returns the old value.
    @inline(__always) @discardableResult
    static func add(_ value: UInt64, to word: UnsafeMutablePointer<UInt64>) -> UInt64 {
        modelstore_atomic_fetch_add(word, value)
    }

    /// Subtracts `value` (sequentially consistent); returns the old value.
    @inline(__always) @discardableResult
    static func subtract(_ value: UInt64, from word: UnsafeMutablePointer<UInt64>) -> UInt64 {
        modelstore_atomic_fetch_sub(word, value)
    }

    /// Loads `word` (sequentially consistent).
    @inline(__always)
    static func load(_ word: UnsafeMutablePointer<UInt64>) -> UInt64 {
        modelstore_atomic_load(word)
    }

    /// Stores `value` in `word` (sequentially consistent).
    @inline(__always)
    static func store(_ value: UInt64, in word: UnsafeMutablePointer<UInt64>) {
        modelstore_atomic_store(word, value)
    }

    /// Stores `value` in `word` with release ordering.
    @inline(__always)
    static func releasingStore(_ value: UInt64, in word: UnsafeMutablePointer<UInt64>) {
        modelstore_release_store(word, value)
    }

    /// Loads `byte` (relaxed).
    @inline(__always)
    static func relaxedLoad(_ byte: UnsafeMutablePointer<UInt8>) -> UInt8 {
        modelstore_relaxed_load_byte(byte)
    }

    /// Stores `value` in `byte` (relaxed).
    @inline(__always)
    static func relaxedStore(_ value: UInt8, in byte: UnsafeMutablePointer<UInt8>) {
        modelstore_relaxed_store_byte(byte, value)
    }
}
