/// The output and bookkeeping of one ``JSONFastEncoder`` run, shared by its encoders and containers.
///
/// JSON is streamed, so containers must be used in nesting order: writing to a container closes every container
/// opened inside it since, and a closed container can never be written to again. Each open array or object is a
/// ``Frame``; containers hold a frame's index and serial number and check both on every call, so a container used
/// out of order is caught (the encoder then gives up) rather than writing misplaced bytes.
///
/// Each value being encoded owns a *slot*: the encoder passed to its `encode(to:)` may open one container (or
/// reopen the same keyed or unkeyed one, as Foundation allows) or write one single value, and nothing else.
final class JSONEncodingState {
    /// An open array or object.
    struct Frame {
        /// A serial number that tells this frame from later ones at the same index.
        var id: Int
        var isObject: Bool
        /// Members written so far, to place commas.
        var count: Int
        /// How much of ``JSONEncodingState/path`` is the coding path of the encoder whose value this frame is in.
        var encoderPathCount: Int
        /// Where the key of a nested container in its parent (the frame below), which its coding path adds, is in
        /// ``JSONEncodingState/nestedKeys``; -1 for a value's own container. An index rather than the key keeps the
        /// frame a plain value: copying an optional existential costs calls into the runtime.
        var nestedKeyIndex: Int
        /// Where this object's keys start in ``JSONEncodingState/keyLog``.
        var keyLogStart: Int
    }

    /// What the current slot's encoder has done so far.
    enum SlotUse {
        case unused
        case singleValue
        case frame(index: Int, id: Int)
    }

    /// The mutable fields, kept behind a pointer: Swift checks every access to a class's stored `var` for
    /// exclusivity at run time, which cost about a third of the encoder's time. Only this class touches them, from
    /// one thread, and none of its methods hands out a reference that outlives an access.
    private struct Fields {
        /// The output, copied to the caller's buffer once the run has finished.
        var output = JSONByteWriter()
        var frames: [Frame] = []
        /// The coding path of the innermost encoder: one key per value being encoded, as Foundation builds it from
        /// its chain of encoders. (Foundation leaves nested containers' keys out of the encoders of the values in
        /// them; so does this path, and only containers add them.)
        var path: [any CodingKey] = []
        /// The keys of the open nested containers (see ``Frame/nestedKeyIndex``).
        var nestedKeys: [any CodingKey] = []
        /// The keys written into each open object, to catch a key written twice (Foundation keeps the last value,
        /// in its own order; the stream cannot take back the first).
        var keyLog: [String] = []
        var nextFrameID = 0
        var nextSlot = 1
        var currentSlot = 0
        var slotUse = SlotUse.unused
        /// Frames below this index belong to values whose encoding is still in progress further up the stack.
        var scopeBase = 0
        /// Set once anything happens that the stream cannot represent; the run then ends with Foundation.
        var failed = false
        /// How many values that encode themselves (containers and single-value wrappers alike) are being encoded,
        /// one inside the other.
        var valueDepth = 0
        /// Set when the model nests too deep: the run then throws this instead of asking Foundation, whose encoder
        /// would recurse until the stack overflows.
        var tooDeep: EncodingError?
        /// Whether ``tooDeep`` is set: a flag to test instead of the optional, whose copy is a call into the runtime.
        var isTooDeep = false
        /// Keyed containers handed out before, for reuse once models drop them.
        var keyedContainers = BinaryContainerBoxCache<KeyedContainerCell>()
        /// Whether an encode call is in progress: kept containers are only handed out during one.
        var isServingCall = false
    }

    private let fields: UnsafeMutablePointer<Fields>

    private init() {
        fields = .allocate(capacity: 1)
        fields.initialize(to: Fields())
        // Typical models nest a few levels and have a dozen keys: one allocation each instead of several.
        fields.pointee.frames.reserveCapacity(8)
        fields.pointee.path.reserveCapacity(8)
        fields.pointee.keyLog.reserveCapacity(16)
    }

    deinit {
        fields.pointee.output.deallocate()
        fields.deinitialize(count: 1)
        fields.deallocate()
    }

    // MARK: - Lifetime

    /// Each thread keeps the state of its last encode call, so that the next call on the thread allocates neither
    /// the state nor its arrays: for a small value (a record's metadata) those allocations were a good part of the
    /// encode. An encode nested in a model's `encode(to:)` finds the slot empty and makes its own state.
    private static let spare = ThreadSpare<JSONEncodingState>()

    /// Arrays that grew past this many elements are not kept for the next call.
    private static let maximumRetainedCount = 256

    /// A state for one encode call: the calling thread's spare, or a new one. The caller passes it to ``end(_:)``
    /// when the call is over, after taking its ``bytes`` back.
    static func start() -> JSONEncodingState {
        let state = spare.take() ?? JSONEncodingState()
        state.fields.pointee.isServingCall = true
        return state
    }

    /// Ends the call `state` served. If an encoder or container that a model kept still refers to it, it stays
    /// theirs (and finished: its output is no longer the caller's buffer); otherwise it is emptied and kept as the
    /// thread's spare.
    static func end(_ state: inout JSONEncodingState) {
        let fields = state.fields
        fields.pointee.isServingCall = false
        // A kept container the model still holds must keep its state alive once the cache no longer does.
        _ = fields.pointee.keyedContainers.releaseAllIfAnyInUse { $0.retainState() }
        guard isKnownUniquelyReferenced(&state) else { return }
        guard fields.pointee.frames.capacity <= maximumRetainedCount,
            fields.pointee.path.capacity <= maximumRetainedCount,
            fields.pointee.nestedKeys.capacity <= maximumRetainedCount,
            fields.pointee.keyLog.capacity <= maximumRetainedCount
        else { return }
        fields.pointee.output.startOver()
        // Emptied only when not empty (after a finished encode they usually are): each removeAll is
        // a uniqueness check and a call into the runtime to destroy no elements, a fixed cost
        // that shows for small values such as a record's metadata.
        if !fields.pointee.frames.isEmpty { fields.pointee.frames.removeAll(keepingCapacity: true) }
        if !fields.pointee.path.isEmpty { fields.pointee.path.removeAll(keepingCapacity: true) }
        if !fields.pointee.nestedKeys.isEmpty { fields.pointee.nestedKeys.removeAll(keepingCapacity: true) }
        if !fields.pointee.keyLog.isEmpty { fields.pointee.keyLog.removeAll(keepingCapacity: true) }
        fields.pointee.nextFrameID = 0
        fields.pointee.nextSlot = 1
        fields.pointee.currentSlot = 0
        fields.pointee.slotUse = .unused
        fields.pointee.scopeBase = 0
        fields.pointee.failed = false
        fields.pointee.valueDepth = 0
        if fields.pointee.isTooDeep {
            fields.pointee.tooDeep = nil
            fields.pointee.isTooDeep = false
        }
        spare.putBack(state)
    }

    /// Where the run writes.
    var output: JSONByteWriter {
        _read { yield fields.pointee.output }
        _modify { yield &fields.pointee.output }
    }

    private var frames: [Frame] {
        _read { yield fields.pointee.frames }
        _modify { yield &fields.pointee.frames }
    }

    private var path: [any CodingKey] {
        _read { yield fields.pointee.path }
        _modify { yield &fields.pointee.path }
    }

    private var nestedKeys: [any CodingKey] {
        _read { yield fields.pointee.nestedKeys }
        _modify { yield &fields.pointee.nestedKeys }
    }

    private var keyLog: [String] {
        _read { yield fields.pointee.keyLog }
        _modify { yield &fields.pointee.keyLog }
    }

    private var nextFrameID: Int {
        get { fields.pointee.nextFrameID }
        set { fields.pointee.nextFrameID = newValue }
    }

    private var nextSlot: Int {
        get { fields.pointee.nextSlot }
        set { fields.pointee.nextSlot = newValue }
    }

    private var currentSlot: Int {
        get { fields.pointee.currentSlot }
        set { fields.pointee.currentSlot = newValue }
    }

    private var slotUse: SlotUse {
        get { fields.pointee.slotUse }
        set { fields.pointee.slotUse = newValue }
    }

    private var scopeBase: Int {
        get { fields.pointee.scopeBase }
        set { fields.pointee.scopeBase = newValue }
    }

    private(set) var failed: Bool {
        get { fields.pointee.failed }
        set { fields.pointee.failed = newValue }
    }

    private(set) var tooDeep: EncodingError? {
        get { fields.pointee.isTooDeep ? fields.pointee.tooDeep : nil }
        set { fields.pointee.tooDeep = newValue }
    }

    private var valueDepth: Int {
        get { fields.pointee.valueDepth }
        set { fields.pointee.valueDepth = newValue }
    }

    /// Records that the model nests past ``JSONFastEncoder/maximumDepth``: the run ends with this error, even if the
    /// model catches it, and never with Foundation.
    private func recordTooDeep(_ codingPath: [any CodingKey], _ value: Any) -> EncodingError {
        let error = EncodingError.invalidValue(value, .init(
            codingPath: codingPath,
            debugDescription: "Values nest deeper than \(JSONFastEncoder.maximumDepth) levels; JSON readers, "
                + "Foundation's included, stop at 512."
        ))
        if !fields.pointee.isTooDeep {
            tooDeep = error
            fields.pointee.isTooDeep = true
        }
        failed = true
        return error
    }

    /// Records that the run must end with Foundation, and returns the error to throw.
    func fail() -> JSONFastEncoderError {
        failed = true
        return .needsFoundation
    }

    func codingPath(count: Int) -> [any CodingKey] {
        Array(path.prefix(min(count, path.count)))
    }

    // MARK: - Values

    /// Encodes the whole document.
    func encodeTopLevel<Value: Encodable>(_ value: Value) throws {
        try encodeValue(value)
        guard !failed, frames.isEmpty else { throw fail() }
    }

    /// Encodes `value` at the current position (after its key or comma), in a slot of its own, with the coding
    /// path as it is.
    func encodeValue<Value: Encodable>(_ value: Value) throws {
        if try writeKnownValue(value) { return }
        try encodeInOwnSlot(value, pathBase: path.count)
    }

    /// Encodes `value`, the value of `key`, which its coding path adds. (A key of its own type rather than an
    /// optional `any CodingKey` for both: copying and destroying an optional existential are calls into the
    /// runtime, and the top-level value, which has no key, would pay for them on every call.)
    func encodeValue<Value: Encodable, Key: CodingKey>(_ value: Value, key: Key) throws {
        if try writeKnownValue(value) { return }
        let pathBase = path.count
        path.append(key)
        try encodeInOwnSlot(value, pathBase: pathBase)
    }

    /// Encodes `value` through its own `encode(to:)` in a new slot; the coding path is back to `pathBase` keys
    /// afterwards.
    private func encodeInOwnSlot<Value: Encodable>(_ value: Value, pathBase: Int) throws {
        guard valueDepth < JSONFastEncoder.maximumDepth else {
            let error = recordTooDeep(path, value)
            path.removeSubrange(pathBase...)
            throw error
        }
        valueDepth += 1
        defer { valueDepth -= 1 }
        let savedSlot = currentSlot
        let savedUse = slotUse
        let savedBase = scopeBase
        currentSlot = nextSlot
        nextSlot += 1
        slotUse = .unused
        scopeBase = frames.count
        do {
            try value.encode(to: JSONEncodingEncoder(state: self, slot: currentSlot, pathCount: path.count))
        } catch {
            // The model may catch this and carry on, but half a value is already written.
            failed = true
            throw error
        }
        // A value that encodes nothing becomes `{}` in Foundation, or an error at the top level.
        if case .unused = slotUse { throw fail() }
        guard !failed else { throw JSONFastEncoderError.needsFoundation }
        while frames.count > scopeBase { closeTopFrame() }
        if path.count > pathBase { path.removeSubrange(pathBase...) }
        currentSlot = savedSlot
        slotUse = savedUse
        scopeBase = savedBase
    }

    /// Claims the current slot for one single value, if `slot` is current and has done nothing yet.
    func beginSingleValue(slot: Int) throws {
        guard slot == currentSlot, !failed, case .unused = slotUse else { throw fail() }
        slotUse = .singleValue
    }

    // MARK: - Keyed containers

    /// The cell of every ``JSONKeyedEncodingContainer``, whatever its key type: where it writes, nil for a
    /// container that could not be opened.
    typealias KeyedContainerCell = JSONContainerCell<JSONEncodingState, (index: Int, id: Int)?>

    /// A keyed container writing into `frame`: one handed out before that nothing uses any more, or a new one.
    func makeKeyedContainer<Key: CodingKey>(_: Key.Type, frame: (index: Int, id: Int)?) -> KeyedEncodingContainer<Key> {
        if fields.pointee.isServingCall, let index = fields.pointee.keyedContainers.reusableIndex(keyType: Key.self) {
            fields.pointee.keyedContainers.cell(at: index).move(to: frame)
            return fields.pointee.keyedContainers.container(at: index)
        }
        return makeNewKeyedContainer(Key.self, frame: frame)
    }

    /// A new keyed container, kept for reuse if the cache has room. Apart from ``makeKeyedContainer(_:frame:)`` so
    /// that the metadata lookups a new container needs are not made on the path that reuses one.
    @inline(never)
    private func makeNewKeyedContainer<Key: CodingKey>(
        _: Key.Type,
        frame: (index: Int, id: Int)?
    ) -> KeyedEncodingContainer<Key> {
        let cell = KeyedContainerCell(state: self, place: frame)
        let container = KeyedEncodingContainer(JSONKeyedEncodingContainer<Key>(cell: cell))
        if !fields.pointee.isServingCall
            || !fields.pointee.keyedContainers.keep(container, cell: cell, keyType: Key.self)
        {
            cell.retainState()
        }
        return container
    }

    // MARK: - Frames

    /// Opens (or, when Foundation would reuse it, returns) the container of the encoder holding `slot`.
    ///
    /// - Returns: The frame's index and id, or nil after marking the run failed.
    func container(slot: Int, isObject: Bool) -> (index: Int, id: Int)? {
        guard slot == currentSlot, !failed else {
            failed = true
            return nil
        }
        switch slotUse {
        case .unused:
            guard let frame = openFrame(isObject: isObject, nestedKeyIndex: -1) else { return nil }
            slotUse = .frame(index: frame.index, id: frame.id)
            return frame
        case .frame(let index, let id):
            guard index < frames.count, frames[index].id == id, frames[index].isObject == isObject else {
                failed = true
                return nil
            }
            return (index, id)
        case .singleValue:
            failed = true
            return nil
        }
    }

    /// Writes `{` or `[` and pushes the frame of a nested container, `key` being its key in its parent.
    func openNestedFrame(isObject: Bool, key: any CodingKey) -> (index: Int, id: Int)? {
        guard let frame = openFrame(isObject: isObject, nestedKeyIndex: nestedKeys.count) else { return nil }
        nestedKeys.append(key)
        return frame
    }

    /// Writes `{` or `[` and pushes its frame.
    private func openFrame(isObject: Bool, nestedKeyIndex: Int) -> (index: Int, id: Int)? {
        guard frames.count < JSONFastEncoder.maximumContainerDepth else {
            // Foundation's own error; the codec checks the model's depth before Foundation recurses into it.
            failed = true
            return nil
        }
        let id = nextFrameID
        nextFrameID += 1
        frames.append(
            Frame(
                id: id, isObject: isObject, count: 0, encoderPathCount: path.count, nestedKeyIndex: nestedKeyIndex,
                keyLogStart: keyLog.count
            )
        )
        output.put(isObject ? UInt8(ascii: "{") : UInt8(ascii: "["))
        return (frames.count - 1, id)
    }

    private func closeTopFrame() {
        let frame = frames.removeLast()
        output.put(frame.isObject ? UInt8(ascii: "}") : UInt8(ascii: "]"))
        // One at a time: objects have a few keys, and `removeSubrange` costs more than popping them.
        while keyLog.count > frame.keyLogStart { keyLog.removeLast() }
        if frame.nestedKeyIndex >= 0 { nestedKeys.removeSubrange(frame.nestedKeyIndex...) }
    }

    /// Makes the frame at `index` the innermost one, closing those opened inside it, or fails if it was closed or
    /// belongs to a value further up the stack.
    func activate(_ index: Int, id: Int) throws {
        guard !failed, index >= scopeBase, index < frames.count, frames[index].id == id else { throw fail() }
        while frames.count > index + 1 { closeTopFrame() }
    }

    /// The coding path of the container whose frame is at `index`, or an empty path for a closed one.
    func codingPath(frame index: Int, id: Int) -> [any CodingKey] {
        guard index < frames.count, frames[index].id == id else { return [] }
        var keys: [any CodingKey] = []
        var frameIndex = index
        while frames[frameIndex].nestedKeyIndex >= 0 {
            keys.append(nestedKeys[frames[frameIndex].nestedKeyIndex])
            frameIndex -= 1
        }
        return codingPath(count: frames[index].encoderPathCount) + keys.reversed()
    }

    /// Members written so far into the frame at `index`.
    func count(frame index: Int, id: Int) -> Int {
        guard index < frames.count, frames[index].id == id else { return 0 }
        return frames[index].count
    }

    /// Writes `key` and its colon into the object at `index`, after a comma if needed.
    func writeKey(_ key: String, frame index: Int, id: Int) throws {
        try activate(index, id: id)
        let start = frames[index].keyLogStart
        if start < keyLog.count {
            for existing in keyLog[start...] where existing == key { throw fail() }
        }
        keyLog.append(key)
        output.putKey(key, afterComma: frames[index].count > 0)
        frames[index].count += 1
    }

    /// Starts a new element of the array at `index`, and returns the element's index.
    func writeElementSeparator(frame index: Int, id: Int) throws -> Int {
        try activate(index, id: id)
        let position = frames[index].count
        if position > 0 { output.put(UInt8(ascii: ",")) }
        frames[index].count += 1
        return position
    }
}
