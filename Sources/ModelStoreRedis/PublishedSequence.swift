/// The highest sequence number this process's own publications got from Redis's counter, and
/// whether one of them showed the counter went back.
///
/// The invalidation reader compares the counter with it as well as with the last entry it read:
/// a reader that lagged behind this process's publications (disconnected, or backing off) when
/// Redis went back to an older snapshot would otherwise find the restored counter "ahead" of it
/// and never learn that writes it published were lost with the snapshot.
///
/// Comparing is not enough on its own: publications made after the restore (ones queued while
/// Redis was down, retried) raise the counter again, possibly past the highest number noted
/// before the reader's next check. This process's publications run one at a time, so each gets a
/// number above the last one's unless the counter went back: a number not above the highest
/// noted is kept as a flag the reader takes at its next check.
final class PublishedSequence: Sendable {
    private struct State {
        var highest: Int64 = 0
        /// The epoch of the publications `highest` counts: numbers of another epoch (Redis's data
        /// was replaced: restarted empty, flushed) start again, which is no going back.
        var epoch: [UInt8] = []
        var wentBack = false
    }

    private let state = Guarded(State())

    /// Notes a number a publication's script returned, in the epoch its entry carried.
    func note(_ sequence: Int64, epoch: [UInt8]) {
        state.withLock { state in
            if epoch != state.epoch {
                state.epoch = epoch
                state.highest = sequence
                return
            }
            if state.highest > 0 && sequence <= state.highest { state.wentBack = true }
            state.highest = max(state.highest, sequence)
        }
    }

    /// The highest number noted in `epoch`; 0 for another epoch's.
    func value(in epoch: [UInt8]) -> Int64 {
        state.withLock { $0.epoch == epoch ? $0.highest : 0 }
    }

    /// Forgets the highest number: Redis's data was replaced (a new epoch), numbers start again.
    /// The flag stays: set by a publication after the reader read the counter, it may be of a
    /// later going back (taking it twice costs one more new epoch, losing it a stale record).
    func reset() {
        state.withLock { $0.highest = 0 }
    }


    /// Whether a publication got a number not above an earlier one's since the last call (the
    /// counter went back under it); clears the flag.
    func takeWentBack() -> Bool {
        state.withLock { state in
            defer { state.wentBack = false }
            return state.wentBack
        }
    }
}
