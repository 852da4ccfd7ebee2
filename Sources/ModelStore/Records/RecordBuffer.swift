/// The memory a single ``ModelStore/set(_:forKey:expiresAfter:metadata:tags:)-2n6sg`` assembles its record in (header, then the
/// encoded model) before LevelDB copies the bytes into its log and memtable.
///
/// Each thread keeps one between calls, so a put allocates no buffer of its own: the buffer is
/// taken for the call and put back afterwards (a nested put on the same thread, from a model's
/// `encode(to:)`, simply gets a fresh one). Nothing keeps a reference past the call, which is
/// what makes reusing it safe.
final class RecordBuffer {
    /// A buffer that grew past this is dropped instead of kept: one huge model must not pin its
    /// memory to a thread for the thread's lifetime.
    static let maximumKeptCapacity = 64 << 10

    private static let spare = ThreadSpare<RecordBuffer>()

    /// The record's bytes; ``ModelStore/encodeRecord(_:forKey:lifetime:metadata:into:)`` replaces them.
    ///
    /// Exclusivity is not checked at run time: only the thread that took the buffer touches
    /// it, so the check would cost a runtime call per access and never fire.
    @exclusivity(unchecked) var bytes: [UInt8] = []

    private init() {
        bytes.reserveCapacity(1 << 10)
    }

    /// The calling thread's buffer, or a new one if the thread has none to spare.
    @inline(__always)
    static func take() -> RecordBuffer {
        spare.take() ?? RecordBuffer()
    }

    /// Offers `buffer` back to the calling thread for its next put.
    @inline(__always)
    static func putBack(_ buffer: RecordBuffer) {
        guard buffer.bytes.capacity <= maximumKeptCapacity else { return }
        spare.putBack(buffer)
    }
}
