/// The mutable state that the encoder and all its containers share during one encode call.
///
/// Codable never says when a container is finished, so containers are closed lazily: writing to a container first
/// closes every container opened after it (filling in their headers), and ``finish()`` closes the rest. Encoding
/// is therefore one forward pass into one buffer. The price is that containers must be filled in the order they
/// were opened, which synthesized Codable and nearly all hand-written code does; writing to a container after a
/// sibling or its parent has moved on throws `EncodingError.invalidValue` instead of producing corrupt bytes.
final class BinaryEncodingState {
    /// A container whose header still needs its length and count.
    private struct OpenContainer {
        let header: Int
        var count: Int
    }

    // Every access to these properties is short and none calls back into the state while it lasts, so the dynamic
    // exclusivity checks Swift would otherwise make on each access (a quarter of the encode time) are turned off.

    @exclusivity(unchecked) var writer: BinaryWriter
    /// Open containers, outermost first. A container's index here is its `level`.
    @exclusivity(unchecked) private var open: [OpenContainer] = []
    /// Keys from the root to the value being encoded; entries past a container's depth may be stale.
    @exclusivity(unchecked) private var path = BinaryCodingPath()
    /// How many `encode(to:)` calls are in progress, to stop runaway recursion.
    @exclusivity(unchecked) private var nesting = 0
    @exclusivity(unchecked) private var isFinished = false
    /// An error from a place where Codable cannot throw (creating a container); ``finish()`` throws it.
    private var deferredError: EncodingError?

    init(bytes: [UInt8]) {
        writer = BinaryWriter(bytes: bytes)
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

    private func close(downTo level: Int) {
        while open.count > level {
            let container = open.removeLast()
            if !writer.patchContainerHeader(at: container.header, count: container.count) {
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
            deferredError = error as? EncodingError ?? .invalidValue((), .init(
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
        if level < open.count, open[level].header == slot, writer.byte(at: slot) == tag {
            close(downTo: level + 1)
            return slot
        }
        close(downTo: level)
        guard !isFinished, open.count == level, writer.count == slot else {
            record(misuse(codingPath(depth: depth)))
            return -1
        }
        guard level < BinaryFormat.maximumDepth else {
            record(tooDeep(codingPath(depth: depth)))
            return -1
        }
        let header = writer.writeContainerHeader(tag)
        if open.isEmpty {
            open.reserveCapacity(16)
        }
        open.append(OpenContainer(header: header, count: 0))
        return header
    }

    /// Makes room for one more element in the container at `level` whose header is at `header`: closes the
    /// containers opened after it and checks that it is still open.
    func beginElement(level: Int, header: Int, depth: Int, key: some CodingKey) throws {
        close(downTo: level + 1)
        guard open.count == level + 1, open[level].header == header else {
            // A container that could not be opened reports why (too deep, say) rather than a generic misuse.
            throw deferredError ?? misuse(codingPath(depth: depth, appending: key))
        }
        open[level].count += 1
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
        guard !isFinished, open.count == level, writer.count == slot else {
            throw misuse(codingPath(depth: depth))
        }
    }

    /// Removes the nil that ``BinaryKeyedEncodingContainer/superEncoder()`` left in `slot`, when the super encoder
    /// is first used right after it was created, as it should be.
    func removePlaceholder(slot: Int, level: Int) {
        close(downTo: level)
        if !isFinished, open.count == level, writer.count == slot + 1, writer.byte(at: slot) == BinaryFormat.Tag.null {
            writer.truncate(to: slot)
        }
    }

    /// Undoes a half-written element after its encoding threw, so a caller that catches the error and carries on
    /// still produces a well-formed payload.
    func rollBack(to mark: Int, level: Int, header: Int) {
        guard level < open.count, open[level].header == header else { return }
        if open.count > level + 1 {
            open.removeSubrange((level + 1)...)
        }
        open[level].count -= 1
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
