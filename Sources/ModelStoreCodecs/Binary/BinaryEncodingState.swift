import Foundation

/// The mutable state that the encoder and all its containers share during one encode call.
///
/// Codable never says when a container is finished, so containers are closed lazily: writing to a container first
/// closes every container opened after it (filling in their headers), and ``finish()`` closes the rest. Encoding
/// is therefore one forward pass into one buffer. The price is that containers must be filled in the order they
/// were opened, which synthesized Codable and nearly all hand-written code does; writing to a container after a
/// sibling or its parent has moved on throws `EncodingError.invalidValue` instead of producing corrupt bytes.
final class BinaryEncodingState {
    // Every access to these properties is short and none calls back into the state while it lasts, so the dynamic
    // exclusivity checks Swift would otherwise make on each access (a quarter of the encode time) are turned off.

    @exclusivity(unchecked) var writer: BinaryWriter
    /// Where the header of the innermost open container is, or -1 when none is open.
    ///
    /// Open containers form a chain through their own headers, so tracking them allocates nothing: until a
    /// container is closed, its header's length word holds the position of its parent's header (all ones for
    /// none) and its count word counts the elements written so far. Closing it puts the real length in.
    @exclusivity(unchecked) private var innermost = -1
    /// How many containers are open; a container's `level` is its index in the chain, outermost first.
    @exclusivity(unchecked) private var openCount = 0
    /// Keys from the root to the value being encoded; entries past a container's depth may be stale.
    @exclusivity(unchecked) private var path = BinaryCodingPath()
    /// How many `encode(to:)` calls are in progress, to stop runaway recursion.
    @exclusivity(unchecked) private var nesting = 0
    @exclusivity(unchecked) private var isFinished = false
    /// An error from a place where Codable cannot throw (creating a container); ``finish()`` throws it. Always an
    /// `EncodingError`, stored as `any Error` because testing that for nil is a pointer compare, while an
    /// `EncodingError?` is copied to be tested.
    @exclusivity(unchecked) private var deferredError: (any Error)?
    /// Whether the writer's memory was handed on, so `deinit` must not free it.
    @exclusivity(unchecked) private var writerTaken = false
    /// Keyed containers handed out before, for reuse once models drop them.
    @exclusivity(unchecked) private var keyedContainers = BinaryContainerBoxCache<KeyedContainerCell>()
    /// Whether an encode call is in progress: kept containers are only handed out (and so activated) during one.
    @exclusivity(unchecked) private var isServingCall = false

    /// A parent link that means "no parent"; header positions stay below it (see
    /// ``openContainer(_:slot:level:depth:)``).
    private static let noParent = UInt32.max

    private init() {
        writer = BinaryWriter()
    }

    deinit {
        if !writerTaken {
            writer.deallocate()
        }
    }

    // MARK: - Lifetime

    /// Each thread keeps the state of its last encode call, so the next call allocates neither it nor its block.
    private static let spare = ThreadSpare<BinaryEncodingState>()

    /// A state for one encode call: the calling thread's spare, or a new one.
    static func start() -> BinaryEncodingState {
        let state = spare.take() ?? BinaryEncodingState()
        state.isServingCall = true
        return state
    }

    /// Ends the encode call that `state` served. If no encoder or container the model kept still refers to it, it
    /// is emptied and kept as the thread's spare; otherwise it stays finished, so the kept encoder can only throw.
    static func end(_ state: inout BinaryEncodingState) {
        state.isServingCall = false
        // Kept containers do not retain the state, so none may be used once the call is over.
        state.keyedContainers.forEachCell { $0.deactivate() }
        guard isKnownUniquelyReferenced(&state) else { return }
        state.writer.startOver(blockWasTaken: state.writerTaken)
        state.writerTaken = false
        state.innermost = -1
        state.openCount = 0
        state.path.removeAll()
        state.nesting = 0
        state.isFinished = false
        if state.deferredError != nil {
            state.deferredError = nil
        }
        spare.putBack(state)
    }

    /// A keyed container whose header is at `header` (-1 if it could not be opened): one handed out before that
    /// nothing uses any more, or a new one.
    func makeKeyedContainer<Key: CodingKey>(
        _: Key.Type,
        header: Int,
        level: Int,
        depth: Int
    ) -> KeyedEncodingContainer<Key> {
        let place = KeyedPlace(header: header, level: level, depth: depth)
        if isServingCall, let index = keyedContainers.reusableIndex(keyType: Key.self) {
            keyedContainers.cell(at: index).activate(at: place)
            return keyedContainers.container(at: index)
        }
        return makeNewKeyedContainer(Key.self, at: place)
    }

    /// A new keyed container, kept for reuse if the cache has room. Apart from
    /// ``makeKeyedContainer(_:header:level:depth:)`` so that the metadata lookups a new container needs are not made
    /// on the path that reuses one.
    @inline(never)
    private func makeNewKeyedContainer<Key: CodingKey>(
        _: Key.Type,
        at place: KeyedPlace
    ) -> KeyedEncodingContainer<Key> {
        let cell = KeyedContainerCell(state: self, place: place)
        let container = KeyedEncodingContainer(BinaryKeyedEncodingContainer<Key>(cell: cell))
        if !isServingCall || !keyedContainers.keep(container, cell: cell, keyType: Key.self) {
            cell.retainState()
        }
        return container
    }

    /// What a keyed container that a model kept past its encode call throws.
    static func expired() -> any Error {
        EncodingError.invalidValue((), .init(
            codingPath: [],
            debugDescription: "A keyed container was used after the encode call that made it had returned."
        ))
    }

    /// An encoder for a slot of a keyed container that a model kept past its encode call: it belongs to a finished
    /// state of its own, so its containers throw on every write.
    static func expiredEncoder() -> BinaryEncoder {
        let state = BinaryEncodingState()
        state.isFinished = true
        return BinaryEncoder(state: state, slot: -1, level: 0, depth: 0)
    }

    /// Writes the payload for `value`: the format version, then the value, with every container closed.
    func encodePayload<Value: Encodable>(_ value: Value) throws {
        writer.writeTag(BinaryFormat.version)
        try encodeSingleValue(value, level: 0, depth: 0)
        try finish()
    }

    /// The finished payload as a `Data` that owns the writer's memory.
    func takeData() -> Data {
        precondition(!writerTaken)
        writerTaken = true
        return writer.takeData()
    }

    /// Copies the finished payload to the end of `buffer`. (A method of the state, not of its writer, so the state,
    /// which owns the memory, is alive while it is read.)
    func appendPayload(to buffer: inout [UInt8]) {
        writer.append(to: &buffer)
    }

    // MARK: - Coding path

    func codingPath(depth: Int) -> [any CodingKey] {
        path.prefix(depth: depth)
    }

    func codingPath(depth: Int, appending key: some CodingKey) -> [any CodingKey] {
        path.prefix(depth: depth, appending: key)
    }

    /// Records that the value being entered at `depth` is stored under `key`.
    func enter(_ key: some CodingKey, atDepth depth: Int) {
        path.enter(key, atDepth: depth)
    }

    // MARK: - Containers

    private func parent(of header: Int) -> Int {
        let link = writer.headerWord(0, at: header)
        return link == Self.noParent ? -1 : Int(link)
    }

    /// Pops the innermost open container without filling in its header (its bytes are about to be dropped).
    private func discardInnermost() {
        innermost = parent(of: innermost)
        openCount -= 1
    }

    /// The header of the open container at `level`, which must be below ``openCount``.
    private func header(atLevel level: Int) -> Int {
        var header = innermost
        for _ in level..<(openCount - 1) {
            header = parent(of: header)
        }
        return header
    }

    @inline(__always)
    private func close(downTo level: Int) {
        if openCount > level {
            closeContainers(downTo: level)
        }
    }

    private func closeContainers(downTo level: Int) {
        while openCount > level {
            let header = innermost
            let elementCount = Int(writer.headerWord(1, at: header))
            discardInnermost()
            if !writer.patchContainerHeader(at: header, count: elementCount) {
                record(EncodingError.invalidValue((), .init(
                    codingPath: [],
                    debugDescription: "A container is larger than the binary format's limit of 4 GiB."
                )))
            }
        }
    }

    /// Keeps the first error raised where Codable gives no way to throw, for ``finish()`` to throw.
    func record(_ error: any Error) {
        if deferredError == nil {
            deferredError = error as? EncodingError ?? EncodingError.invalidValue((), .init(
                codingPath: [],
                debugDescription: "\(error)"
            ))
        }
    }

    private func misuse(_ codingPath: [any CodingKey]) -> EncodingError {
        .invalidValue((), .init(
            codingPath: codingPath,
            debugDescription: """
                BinaryModelCodec writes containers in order: a container was used after a sibling or its parent \
                was written to, or after encoding finished, or a value was encoded twice into one slot.
                """
        ))
    }

    /// Opens a keyed or unkeyed container for the value slot that starts at `slot`, and returns where its header
    /// is, or -1 when it cannot be opened (the container then throws on every write, and so does ``finish()``).
    ///
    /// Asking the same encoder for the same kind of container again returns the open one, as JSONEncoder does, so
    /// a subclass and its superclass may share one encoder.
    func openContainer(_ tag: UInt8, slot: Int, level: Int, depth: Int) -> Int {
        if level < openCount, header(atLevel: level) == slot, writer.byte(at: slot) == tag {
            close(downTo: level + 1)
            return slot
        }
        close(downTo: level)
        guard !isFinished, openCount == level, writer.count == slot else {
            record(misuse(codingPath(depth: depth)))
            return -1
        }
        guard level < BinaryFormat.maximumDepth else {
            record(tooDeep(codingPath(depth: depth)))
            return -1
        }
        // A header past 4 GiB lies inside a container whose body is too long anyway; refusing it here keeps every
        // header position representable in the 32-bit parent link.
        guard slot < Int(Self.noParent) else {
            record(EncodingError.invalidValue((), .init(
                codingPath: codingPath(depth: depth),
                debugDescription: "A container is larger than the binary format's limit of 4 GiB."
            )))
            return -1
        }
        let link = innermost < 0 ? Self.noParent : UInt32(truncatingIfNeeded: innermost)
        let header = writer.writeContainerHeader(tag, first: link, second: 0)
        innermost = header
        openCount += 1
        return header
    }

    /// Makes room for one more element in the container at `level` whose header is at `header`: closes the
    /// containers opened after it and checks that it is still open.
    @inline(__always)
    func beginElement(level: Int, header: Int, depth: Int, key: some CodingKey) throws {
        close(downTo: level + 1)
        guard openCount == level + 1, innermost == header else {
            throw misplacedElement(depth: depth, key: key)
        }
        writer.setHeaderWord(1, at: header, to: writer.headerWord(1, at: header) &+ 1)
    }

    private func misplacedElement(depth: Int, key: some CodingKey) -> any Error {
        // A container that could not be opened reports why (too deep, say) rather than a generic misuse.
        deferredError ?? misuse(codingPath(depth: depth, appending: key))
    }

    /// ``beginElement(level:header:depth:key:)`` for a keyed container, followed by the key itself.
    func beginEntry(level: Int, header: Int, depth: Int, key: some CodingKey) throws {
        try beginElement(level: level, header: header, depth: depth, key: key)
        writer.writeKey(key.stringValue)
    }

    /// Checks that a single-value container may write into its slot: its parent is the innermost open container
    /// and nothing has been written into the slot yet.
    func beginSingleValue(slot: Int, level: Int, depth: Int) throws {
        close(downTo: level)
        guard !isFinished, openCount == level, writer.count == slot else {
            throw misuse(codingPath(depth: depth))
        }
    }

    /// Removes the nil that ``BinaryKeyedEncodingContainer/superEncoder()`` left in `slot`, when the super encoder
    /// is first used right after it was created, as it should be.
    func removePlaceholder(slot: Int, level: Int) {
        close(downTo: level)
        if !isFinished, openCount == level, writer.count == slot + 1, writer.byte(at: slot) == BinaryFormat.Tag.null {
            writer.truncate(to: slot)
        }
    }

    /// Undoes a half-written element after its encoding threw, so a caller that catches the error and carries on
    /// still produces a well-formed payload.
    func rollBack(to mark: Int, level: Int, header: Int) {
        guard level < openCount, self.header(atLevel: level) == header else { return }
        while openCount > level + 1 {
            discardInnermost()
        }
        writer.setHeaderWord(1, at: header, to: writer.headerWord(1, at: header) &- 1)
        writer.truncate(to: mark)
    }

    // MARK: - Values

    // Keyed and unkeyed containers pass the value's key; single-value containers have none. These come in pairs
    // rather than taking an optional key because `Optional<Key>` for a generic key costs a metadata lookup per call.

    /// Encodes `value` under `key` into the slot that starts at the end of the buffer.
    ///
    /// - Parameters:
    ///   - level: The number of open containers the slot lives in; a container opened for it goes at this index.
    ///   - depth: The coding-path depth of the container holding the slot.
    func encode<Value: Encodable>(_ value: Value, level: Int, depth: Int, key: some CodingKey) throws {
        if encodeFastPath(value) { return }
        enter(key, atDepth: depth)
        try encodeNested(value, level: level, depth: depth + 1)
    }

    /// Encodes `value` into a single-value container's slot, at the same coding-path depth.
    func encodeSingleValue<Value: Encodable>(_ value: Value, level: Int, depth: Int) throws {
        if encodeFastPath(value) { return }
        try encodeNested(value, level: level, depth: depth)
    }

    /// Runs `value.encode(to:)` for a slot that starts at the end of the buffer.
    private func encodeNested<Value: Encodable>(_ value: Value, level: Int, depth: Int) throws {
        nesting += 1
        defer { nesting -= 1 }
        guard nesting <= BinaryFormat.maximumDepth else { throw tooDeep(codingPath(depth: depth)) }
        let slot = writer.count
        try value.encode(to: BinaryEncoder(state: self, slot: slot, level: level, depth: depth))
        if writer.count == slot {
            // The value wrote nothing at all; like JSONEncoder, store an empty keyed container.
            _ = openContainer(BinaryFormat.Tag.keyed, slot: slot, level: level, depth: depth)
        }
    }

    /// Checks that a 128-bit integer fits the format's 64-bit integers before it is written.
    func checkFits64Bits<Value: BinaryInteger>(
        _ value: Value,
        codingPath: @autoclosure () -> [any CodingKey]
    ) throws {
        guard Int64(exactly: value) != nil || UInt64(exactly: value) != nil else {
            throw EncodingError.invalidValue(value, .init(
                codingPath: codingPath(),
                debugDescription: "BinaryModelCodec stores integers of up to 64 bits; \(value) does not fit."
            ))
        }
    }

    private func tooDeep(_ codingPath: [any CodingKey]) -> EncodingError {
        .invalidValue((), .init(
            codingPath: codingPath,
            debugDescription: "Values nest deeper than \(BinaryFormat.maximumDepth) levels."
        ))
    }

    /// Closes every container and throws any error that could not be thrown where it happened.
    func finish() throws {
        close(downTo: 0)
        isFinished = true
        if let deferredError { throw deferredError }
    }
}

extension BinaryEncodingState {
    /// Where a ``BinaryKeyedEncodingContainer`` writes.
    struct KeyedPlace {
        /// Where the container's header is, or -1 if it could not be opened (every write then throws).
        var header: Int
        /// The container's index among the open containers.
        var level: Int
        /// The coding-path depth of the container; its values are one deeper.
        var depth: Int
    }

    /// The cell of every ``BinaryKeyedEncodingContainer``, whatever its key type.
    typealias KeyedContainerCell = BinaryContainerCell<BinaryEncodingState, KeyedPlace>
}
