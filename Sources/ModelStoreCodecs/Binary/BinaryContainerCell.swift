/// Where a keyed container reads or writes (its `Place`), and for which call: what the concrete container behind a
/// `KeyedEncodingContainer` or `KeyedDecodingContainer` holds, apart from the container so that the state can keep
/// the container's box and point it at another place later (see ``BinaryContainerBoxCache``).
final class BinaryContainerCell<State: AnyObject, Place> {
    // Every access is short and none calls back into the cell while it lasts, so the dynamic exclusivity checks are
    // turned off (see BinaryEncodingState).

    /// The state of the call the container belongs to. Not retained: a kept cell would otherwise keep its state
    /// alive through the state's own cache. It is only used while ``isActive``, and the state deactivates every
    /// kept cell when its call ends, before it could go away.
    @exclusivity(unchecked) private var state: Unmanaged<State>
    /// Keeps the state alive for a cell the cache did not keep, which stays active as long as it lives. (Its state
    /// refuses to be used once the call is over: the decoder's reader is empty, the encoder is finished.)
    @exclusivity(unchecked) private var owner: State?
    @exclusivity(unchecked) private(set) var isActive = true
    @exclusivity(unchecked) private(set) var place: Place

    init(state: State, place: Place) {
        self.state = .passUnretained(state)
        self.place = place
    }

    /// Makes the cell retain its state, for a container the state does not keep.
    func retainState() {
        owner = state.takeUnretainedValue()
    }

    /// Points a kept cell at another place in its state's current call.
    func activate(at place: Place) {
        self.place = place
        isActive = true
    }

    /// Ends a kept cell's use: from now on its container only throws, even if a model kept it.
    func deactivate() {
        isActive = false
    }

    /// Calls `body` with the state, without retaining it (which would cost two atomic operations per value), or
    /// throws `expired()` if the call has returned.
    @inline(__always)
    func withState<Result>(
        orThrow expired: () -> any Error,
        _ body: (State) throws -> Result
    ) throws -> Result {
        guard isActive else { throw expired() }
        return try state._withUnsafeGuaranteedRef(body)
    }

    /// Calls `body` with the state, or returns `fallback` if the call has returned; for members that cannot throw.
    @inline(__always)
    func withState<Result>(else fallback: @autoclosure () -> Result, _ body: (State) -> Result) -> Result {
        guard isActive else { return fallback() }
        return state._withUnsafeGuaranteedRef(body)
    }
}
