import Foundation

/// What the decoder and all its containers share during one decode call: the input, its tape, the coding path,
/// and whether the call must be redone by Foundation.
///
/// Decoding only reads, so containers can be used in any order. One rule makes the fast decoder safe to put in
/// front of Foundation's: every error it throws, and every answer it cannot give exactly (a stale coding path),
/// sets ``needsFoundation``. A model may catch an error and carry on, so an error that differs from Foundation's in
/// any detail could lead it elsewhere; with the flag set, ``JSONFastDecoder`` discards whatever the model built and
/// the codec asks Foundation instead. A call that never sets the flag made exactly the calls, and got exactly the
/// answers, it would have made and got from Foundation.
final class JSONDecodingState {
    // Every access to these properties is short and none calls back into the state while it lasts, so Swift's
    // dynamic exclusivity checks are turned off for them.

    /// The document; borrowed from the caller until ``detachFromInput()`` copies it.
    @exclusivity(unchecked) private(set) var bytes: UnsafeRawPointer
    @exclusivity(unchecked) private(set) var length: Int
    /// The copy ``detachFromInput()`` made, freed with the state.
    @exclusivity(unchecked) private var ownedBytes: UnsafeMutableRawPointer?
    /// The document's structure. Lookups update the key hints kept in object entries. Its memory is reused from
    /// call to call while the state is the thread's spare.
    @exclusivity(unchecked) private(set) var tape: JSONTape
    @exclusivity(unchecked) var path = JSONCodingPath()
    /// Set when Foundation must redo the call (see the type's documentation).
    @exclusivity(unchecked) private(set) var needsFoundation = false
    /// String key tables of objects whose keys need String matching, by tape index.
    @exclusivity(unchecked) var keyIndexes: [Int: JSONKeyIndex] = [:]
    /// Byte-hash key tables of large objects whose keys are distinct plain ASCII, by tape index.
    @exclusivity(unchecked) var byteIndexes: [Int: [UInt64: Int]] = [:]
    /// How many null values ``makeMissingValue()`` has invented.
    @exclusivity(unchecked) private var missingValues = 0
    /// Keyed containers handed out before, for reuse once models drop them.
    @exclusivity(unchecked) private var keyedContainers = BinaryContainerBoxCache<KeyedContainerCell>()
    /// Whether a decode call is in progress: kept containers are only handed out during one.
    @exclusivity(unchecked) private var isServingCall = false

    /// What ``bytes`` is between calls: a non-null address never dereferenced, since ``length`` is then zero (as
    /// empty buffers in the standard library do).
    private static var noInput: UnsafeRawPointer {
        UnsafeRawPointer(bitPattern: MemoryLayout<UInt64>.alignment).unsafelyUnwrapped
    }

    private init() {
        bytes = JSONDecodingState.noInput
        length = 0
        tape = JSONTape(inputLength: 0)
    }

    deinit {
        tape.deallocate()
        ownedBytes?.deallocate()
    }

    // MARK: - Lifetime

    /// Each thread keeps the state of its last decode call, so that the next call on the thread allocates neither
    /// the state nor its tape: for a small document (a record's metadata) those allocations were a good part of
    /// the decode.
    ///
    /// The state stays in its thread's slot while a call uses it, marked by ``isServingCall``, and the call
    /// borrows the slot's own reference rather than taking a new one (see ``start()``). Taking the state out and
    /// putting it back (`pthread_setspecific` twice, a retain and a release) cost about 100 instructions of a
    /// 3,800-instruction metadata decode, and each retain or release is an atomic operation that costs more time
    /// than its instructions suggest. A decode nested in a model's `init(from:)` finds the slot's state busy and
    /// makes its own.
    private static let spare = ThreadSpare<JSONDecodingState>()

    /// The address in the calling thread's slot, if it holds a state.
    @inline(__always)
    private static func slotAddress() -> UnsafeMutableRawPointer? {
        guard let key = spare.key else { return nil }
        return pthread_getspecific(key)
    }

    /// A state for one decode call: the calling thread's one if it is free, or a new one. The caller hands it the
    /// document with ``read(_:)`` and, whatever happens, passes it to ``end(_:)`` when the call is over.
    static func start() -> JSONDecodingState {
        if let address = slotAddress() {
            let slot = Unmanaged<JSONDecodingState>.fromOpaque(address)
            if !slot._withUnsafeGuaranteedRef({ $0.isServingCall }) {
                // The slot's reference is lent to the call, not copied: the address stays in the slot, so that a
                // nested call sees the state busy, and ``end(_:)`` hands the reference back (or drops it).
                let state = slot.takeRetainedValue()
                state.isServingCall = true
                return state
            }
        }
        let state = JSONDecodingState()
        state.isServingCall = true
        return state
    }

    /// Scans `bytes`, the document of this call, onto the tape.
    ///
    /// - Throws: ``JSONSyntaxError`` if the scanner rejects the document.
    func read(_ bytes: UnsafeRawBufferPointer) throws(JSONSyntaxError) {
        try JSONScanner.scan(bytes, into: &tape)
        // The scanner accepted the buffer, so it is not empty.
        self.bytes = UnsafeRawPointer(bytes.baseAddress.unsafelyUnwrapped)
        length = bytes.count
    }

    /// Ends the call `state` served. If a decoder or container that a model kept still refers to it, it keeps a
    /// copy of the input and stays with them (they must keep working after the caller's buffer is gone, as
    /// Foundation's do), and it leaves the thread's slot; otherwise it is emptied and stays (or becomes) the
    /// thread's state for the next call.
    static func end(_ state: consuming JSONDecodingState) {
        state.isServingCall = false
        // A kept container the model still holds must keep its state alive once the cache no longer does.
        _ = state.keyedContainers.releaseAllIfAnyInUse { $0.retainState() }
        // A state in the slot was lent by it: `state` holds the slot's reference.
        let isLent = slotAddress() == Unmanaged.passUnretained(state).toOpaque()
        guard isKnownUniquelyReferenced(&state) else {
            if state.length > 0 { state.detachFromInput() }
            // Never again the thread's state: a model can still reach it. The slot forgets it, and the reference
            // it lent goes with `state`.
            if isLent, let key = spare.key { pthread_setspecific(key, nil) }
            return
        }
        state.bytes = JSONDecodingState.noInput
        state.length = 0
        state.tape.removeAll(inputLength: 0)
        if !state.path.isEmpty { state.path = JSONCodingPath() }
        state.needsFoundation = false
        if !state.keyIndexes.isEmpty { state.keyIndexes = [:] }
        if !state.byteIndexes.isEmpty { state.byteIndexes = [:] }
        state.missingValues = 0
        if isLent {
            // The lent reference goes back to the slot, which still holds the address: one retain here, and the
            // release of `state` as it goes out of scope, which the optimiser pairs off.
            _ = Unmanaged.passRetained(state)
        } else {
            // A new state (the thread had none, or a nested call's) becomes the thread's if the slot is empty.
            spare.putBack(state)
        }
    }

    /// Copies the input, for a decoder or container that a model kept after its decode call returned: the caller's
    /// buffer is about to go away, and Foundation's decoders keep working in this situation too.
    func detachFromInput() {
        guard ownedBytes == nil else { return }
        let copy = UnsafeMutableRawPointer.allocate(byteCount: length, alignment: 1)
        copy.copyMemory(from: bytes, byteCount: length)
        ownedBytes = copy
        bytes = UnsafeRawPointer(copy)
    }

    /// Records that the result of this call must come from Foundation.
    func deferToFoundation() {
        needsFoundation = true
    }

    // MARK: - Keyed containers

    /// Where a ``JSONKeyedDecodingContainer`` reads.
    struct KeyedPlace {
        /// The object's tape index.
        var object: UInt32
        /// The coding-path depth of the container; its values are one deeper.
        var depth: UInt32
    }

    /// The cell of every ``JSONKeyedDecodingContainer``, whatever its key type.
    typealias KeyedContainerCell = JSONContainerCell<JSONDecodingState, KeyedPlace>

    /// A keyed container for the object at tape index `object`, at `depth`: one handed out before that nothing uses
    /// any more, or a new one.
    func makeKeyedContainer<Key: CodingKey>(_: Key.Type, object: UInt32, depth: UInt32) -> KeyedDecodingContainer<Key> {
        let place = KeyedPlace(object: object, depth: depth)
        if isServingCall, let index = keyedContainers.reusableIndex(keyType: Key.self) {
            keyedContainers.cell(at: index).move(to: place)
            return keyedContainers.container(at: index)
        }
        return makeNewKeyedContainer(Key.self, at: place)
    }

    /// A new keyed container, kept for reuse if the cache has room. Apart from
    /// ``makeKeyedContainer(_:object:depth:)`` so that the metadata lookups a new container needs are not made on
    /// the path that reuses one.
    @inline(never)
    private func makeNewKeyedContainer<Key: CodingKey>(_: Key.Type, at place: KeyedPlace) -> KeyedDecodingContainer<Key> {
        let cell = KeyedContainerCell(state: self, place: place)
        let container = KeyedDecodingContainer(JSONKeyedDecodingContainer<Key>(cell: cell))
        if !isServingCall || !keyedContainers.keep(container, cell: cell, keyType: Key.self) {
            cell.retainState()
        }
        return container
    }

    // MARK: - Values

    /// The entry at `index`; indices past the tape are the null values of ``makeMissingValue()``.
    @inline(__always)
    func entry(_ index: Int) -> JSONTapeEntry {
        index < tape.count ? tape[index] : JSONTapeEntry(tag: JSONKind.null.rawValue, start: 0, end: 0, count: 0)
    }

    @inline(__always)
    func kind(at index: Int) -> JSONKind {
        entry(index).kind
    }

    /// A value index that reads as null, for `superDecoder(forKey:)` with a key the object lacks. Each call gets
    /// its own index, so coding paths through different missing keys stay distinct.
    func makeMissingValue() -> Int {
        // Indices are stored as UInt32; past that (billions of calls) they could no longer be told apart.
        guard tape.count &+ missingValues < Int(UInt32.max) else {
            deferToFoundation()
            return Int(UInt32.max)
        }
        missingValues &+= 1
        return tape.count &+ missingValues
    }

    /// The entry at `index`, if it has `kind`.
    @inline(__always)
    func expect(_ kind: JSONKind, at index: Int) throws(JSONValueError) -> JSONTapeEntry {
        let entry = entry(index)
        guard entry.kind == kind else {
            throw entry.kind == .null ? .valueNotFound : .typeMismatch(found: entry.kind)
        }
        return entry
    }

    /// The raw bytes of a string's contents or a number's text.
    @inline(__always)
    func text(of entry: JSONTapeEntry) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: bytes + Int(entry.start), count: Int(entry.end &- entry.start))
    }

    // MARK: - Coding path

    /// The coding path of the decoder or container at `depth` whose value is at tape index `value`.
    func codingPath(value: UInt32, depth: Int) -> [any CodingKey] {
        if !path.isCurrent(value: value, depth: depth) {
            // The recorded path no longer leads here; the model will not see a wrong one, since Foundation redoes
            // the call.
            deferToFoundation()
        }
        return path.keys(depth: depth)
    }

    func codingPath(value: UInt32, depth: Int, appending key: some CodingKey) -> [any CodingKey] {
        var keys = codingPath(value: value, depth: depth)
        keys.append(key)
        return keys
    }

    // MARK: - Errors

    /// The `DecodingError` for `error`, after marking the call for Foundation.
    func fail(_ error: JSONValueError, _ type: Any.Type, codingPath: [any CodingKey]) -> DecodingError {
        deferToFoundation()
        switch error {
        case .typeMismatch(let found):
            return .typeMismatch(type, .init(
                codingPath: codingPath,
                debugDescription: "Expected to decode \(type) but found \(found.debugDescription) instead."
            ))
        case .valueNotFound:
            return .valueNotFound(type, .init(
                codingPath: codingPath,
                debugDescription: "Cannot get value of type \(type) -- found null value instead"
            ))
        case .notRepresentable:
            return .dataCorrupted(.init(
                codingPath: codingPath,
                debugDescription: "The number does not fit in \(type)."
            ))
        case .invalid:
            return .dataCorrupted(.init(codingPath: codingPath, debugDescription: "The string is not a valid \(type)."))
        case .needsFoundation:
            return .dataCorrupted(.init(
                codingPath: codingPath,
                debugDescription: "ModelStore's JSON decoder leaves this \(type) to Foundation's JSONDecoder."
            ))
        }
    }

    /// A `keyNotFound` error, after marking the call for Foundation.
    func keyNotFound(_ key: some CodingKey, codingPath: [any CodingKey]) -> DecodingError {
        deferToFoundation()
        return .keyNotFound(key, .init(
            codingPath: codingPath,
            debugDescription: "No value associated with key \(key) (\"\(key.stringValue)\")."
        ))
    }

    /// The error for reading past the end of an unkeyed container, after marking the call for Foundation.
    func atEnd(_ type: Any.Type, codingPath: [any CodingKey]) -> DecodingError {
        deferToFoundation()
        return .valueNotFound(type, .init(codingPath: codingPath, debugDescription: "Unkeyed container is at end."))
    }
}
