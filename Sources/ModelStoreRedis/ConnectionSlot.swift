import CModelStoreAtomics

/// One idle connection a ``RedisPool`` keeps outside its lock: a caller takes it, and gives it
/// back, with one compare-and-swap each. A Redis hit on a thread of its own finds it there
/// nearly always, so it no longer takes the pool's lock twice, nor pops and appends its array
/// (issue 37: about 200 instructions a call). The pool's lock and array hold the rest.
///
/// The word holds the connection's object address with one retain the slot owns (0: empty); who
/// swaps it out owns that retain. A connection taken and put back between another caller's load
/// and its swap is the same idle connection, so that swap taking it is right (no ABA harm).
final class ConnectionSlot: @unchecked Sendable {
    // @unchecked: the word is only touched through atomic operations.
    private let word: UnsafeMutablePointer<UInt64>

    init() {
        word = .allocate(capacity: 1)
        word.initialize(to: 0)
    }

    deinit {
        _ = take()
        word.deallocate()
    }

    /// Takes the connection held, if any.
    @inline(__always)
    func take() -> RedisConnection? {
        while true {
            let bits = modelstore_atomic_load(word)
            guard bits != 0, let address = UnsafeRawPointer(bitPattern: UInt(bits)) else { return nil }
            if modelstore_atomic_compare_exchange(word, bits, 0) {
                return Unmanaged<RedisConnection>.fromOpaque(address).takeRetainedValue()
            }
        }
    }

    /// Holds `connection` if the slot is empty; false (holding nothing of it) if another is held.
    @inline(__always)
    func put(_ connection: RedisConnection) -> Bool {
        guard modelstore_atomic_load(word) == 0 else { return false }
        let retained = Unmanaged.passRetained(connection)
        if modelstore_atomic_compare_exchange(word, 0, UInt64(UInt(bitPattern: retained.toOpaque()))) { return true }
        retained.release()
        return false
    }
}
