import CModelStoreAtomics

/// A flag a hot path reads without a lock: one word, stored with release and loaded with
/// acquire ordering, so a reader that sees a store also sees what was written before it.
///
/// For a state kept under a lock whose one common answer a Redis hit asks for (is the
/// invalidation reader following the stream, was Redis lost): the owner stores the flag
/// wherever the locked state changes, and the hit reads only the flag (issue 37: each lock
/// cost a hit about 50 instructions, more with the locked value's copies).
final class FlagWord: @unchecked Sendable {
    // @unchecked: the word is only touched through atomic loads and stores.
    private let word: UnsafeMutablePointer<UInt64>

    init(_ value: Bool) {
        word = .allocate(capacity: 1)
        word.initialize(to: value ? 1 : 0)
    }

    deinit { word.deallocate() }

    /// The flag's value.
    @inline(__always)
    var value: Bool { modelstore_acquire_load(word) != 0 }

    /// Sets the flag.
    @inline(__always)
    func set(_ value: Bool) {
        modelstore_release_store(word, value ? 1 : 0)
    }
}
