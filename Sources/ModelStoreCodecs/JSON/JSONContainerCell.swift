/// Where a JSON keyed container reads or writes (its `Place`) and the state of its call: what the concrete container
/// behind a `KeyedDecodingContainer` or `KeyedEncodingContainer` holds, apart from the container so that the state
/// can keep the container's box and point it at another place in a later call (see ``BinaryContainerBoxCache``).
///
/// Unlike the binary codec's cells, a JSON cell never expires: a container a model keeps past its call keeps
/// working as Foundation's does (the decoding state has copied its input by then, see
/// ``JSONDecodingState/end(_:)``).
final class JSONContainerCell<State: AnyObject, Place> {
    // Every access is short and none calls back into the cell while it lasts, so the dynamic exclusivity checks are
    // turned off (see JSONDecodingState).

    /// The state, not retained while the state's cache holds this cell: the state would otherwise keep itself
    /// alive through its own cache, and never look unreferenced enough to be the thread's spare again.
    @exclusivity(unchecked) private var unretainedState: Unmanaged<State>
    /// The state again, retained, once the cell's container can outlive the state's cache: for a container the
    /// cache did not keep, and for one a model still holds when its call ends.
    @exclusivity(unchecked) private var owner: State?
    @exclusivity(unchecked) private(set) var place: Place

    init(state: State, place: Place) {
        unretainedState = .passUnretained(state)
        self.place = place
    }

    /// Makes the cell keep its state alive, for a container the state's cache no longer (or never) holds.
    func retainState() {
        owner = unretainedState.takeUnretainedValue()
    }

    /// Points a kept cell at another place in its state's current call.
    @inline(__always)
    func move(to place: Place) {
        self.place = place
    }

    /// Calls `body` with the state and the place, without retaining the state (which would cost two atomic
    /// operations per value). The state is alive: either the call it serves is in progress, or ``owner`` holds it.
    @inline(__always)
    func withState<Result>(_ body: (State, Place) throws -> Result) rethrows -> Result {
        let place = place
        return try unretainedState._withUnsafeGuaranteedRef { try body($0, place) }
    }
}
