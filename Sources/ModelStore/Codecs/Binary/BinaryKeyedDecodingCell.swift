/// Which stored keyed container a ``BinaryKeyedDecodingContainer`` reads, and for which decode call.
///
/// A class apart from the container so that the state can keep the container's box and point it at another stored
/// container later (see ``BinaryContainerBoxCache``).
final class BinaryKeyedDecodingCell {
    // Every access is short and none calls back into the cell while it lasts (see BinaryDecodingState).

    /// The state of the decode call the container belongs to. Not retained: a kept cell would otherwise keep its
    /// state alive through the state's own cache. It is only used while ``isActive``, and the state deactivates
    /// every kept cell when its call ends, before it could go away.
    @exclusivity(unchecked) private var state: Unmanaged<BinaryDecodingState>
    /// Keeps the state alive for a cell the cache did not keep, which stays active as long as it lives (and reads
    /// nothing once the call is over, since the state's reader is then empty).
    @exclusivity(unchecked) private var owner: BinaryDecodingState?
    @exclusivity(unchecked) private(set) var isActive = true
    @exclusivity(unchecked) private(set) var bounds: BinaryReader.ContainerBounds
    /// The coding-path depth of the container; its values are one deeper.
    @exclusivity(unchecked) private(set) var depth: Int

    init(state: BinaryDecodingState, bounds: BinaryReader.ContainerBounds, depth: Int) {
        self.state = .passUnretained(state)
        self.bounds = bounds
        self.depth = depth
    }

    /// Makes the cell retain its state, for a container the state does not keep.
    func retainState() {
        owner = state.takeUnretainedValue()
    }

    /// Points a kept cell at another container of its state's current call.
    func activate(bounds: BinaryReader.ContainerBounds, depth: Int) {
        self.bounds = bounds
        self.depth = depth
        isActive = true
    }

    /// Ends a kept cell's use: its container throws from now on, even if a model kept it.
    func deactivate() {
        isActive = false
    }

    /// Calls `body` with the state, without retaining it; throws if the decode call has returned.
    @inline(__always)
    func withState<Result>(_ body: (BinaryDecodingState) throws -> Result) throws -> Result {
        guard isActive else { throw Self.expired() }
        return try state._withUnsafeGuaranteedRef(body)
    }

    /// Calls `body` with the state, or returns nil if the decode call has returned; for members that cannot throw.
    @inline(__always)
    func ifActive<Result>(_ body: (BinaryDecodingState) -> Result) -> Result? {
        guard isActive else { return nil }
        return state._withUnsafeGuaranteedRef(body)
    }

    private static func expired() -> DecodingError {
        .dataCorrupted(.init(
            codingPath: [],
            debugDescription: "A keyed container was used after the decode call that made it had returned."
        ))
    }
}
