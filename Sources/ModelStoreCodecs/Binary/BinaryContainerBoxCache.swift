/// The keyed containers one encoding or decoding state handed out, kept so they can be handed out again.
///
/// Every `container(keyedBy:)` call must return a `KeyedEncodingContainer` or `KeyedDecodingContainer`, and making
/// one allocates a box for the concrete container and looks up the generic metadata of the container and the box
/// and the conformance of the container, all for the model's key type: about a quarter of the time it took to
/// encode a typical model. A model nearly always drops its container when its `encode(to:)` or `init(from:)`
/// returns, so the state keeps each container it makes and, once nothing else refers to it, hands it out again for
/// the next container with the same key type, pointed at the new position through its `Cell` (the object the
/// concrete container reads its position from).
///
/// Whether anything else refers to a container shows in the reference count of its box, so the cache must hold
/// the box itself. The standard library's containers are a struct whose only stored property is the box; that is
/// not documented, so it is checked at run time (the container is one pointer in size and `Mirror` shows a single
/// stored class instance at that address). Where it does not hold, containers are simply not kept.
struct BinaryContainerBoxCache<Cell: AnyObject> {
    private struct Entry {
        let keyType: ObjectIdentifier
        /// The container's box; the only reference to it when no one else uses the container.
        var box: AnyObject
        let cell: Cell
        /// A ``BinaryContainerMaker`` for the container's type.
        let maker: AnyObject
    }

    private var entries: [Entry] = []

    /// Enough for the containers a model has open at once (one per nesting level, typically a handful); containers
    /// made while the cache is full are not kept.
    private static var capacity: Int { 16 }

    /// The index of a kept container for `keyType` that nothing else refers to, if there is one.
    ///
    /// - Complexity: O(*n*) in the number of kept containers, at most 16.
    mutating func reusableIndex(keyType: Any.Type) -> Int? {
        let wanted = ObjectIdentifier(keyType)
        // Through a buffer pointer: subscripting the array in place here made a temporary copy of the box, which
        // then never looked uniquely referenced.
        return entries.withUnsafeMutableBufferPointer { entries in
            for index in entries.indices where entries[index].keyType == wanted {
                if isKnownUniquelyReferenced(&entries[index].box) {
                    return index
                }
            }
            return nil
        }
    }

    /// The cell of the kept container at `index`.
    @inline(__always)
    func cell(at index: Int) -> Cell {
        entries[index].cell
    }

    /// The kept container at `index`, which must have been kept as a `Container`.
    ///
    /// Writing out a `Container` (a resilient generic struct) takes its type metadata, which costs a lookup in the
    /// runtime's cache (~450 instructions) wherever the model's key type is only known at run time. The entry's
    /// maker found that metadata when the container was kept, so none is looked up here. (For the same reason
    /// this returns the container itself rather than an optional or a tuple with it.)
    @inline(__always)
    func container<Container>(at index: Int) -> Container {
        let maker = unsafeDowncast(entries[index].maker, to: BinaryContainerMaker<Container>.self)
        return maker.container(from: entries[index].box)
    }

    /// Whether ``keep(_:cell:keyType:)`` can take another container.
    var hasRoom: Bool {
        entries.count < Self.capacity
    }

    /// Keeps `container`, whose concrete container reads from `cell`, for reuse. Returns false if it was not kept
    /// because the cache is full or the container is not the single reference this cache relies on.
    mutating func keep<Container>(_ container: Container, cell: Cell, keyType: Any.Type) -> Bool {
        guard entries.count < Self.capacity, let box = Self.box(of: container) else { return false }
        let maker = BinaryContainerMaker<Container>()
        entries.append(Entry(keyType: ObjectIdentifier(keyType), box: box, cell: cell, maker: maker))
        return true
    }

    /// For a state that goes away while containers whose concrete container does not retain its cell may still
    /// be in use: every kept container that someone still refers to is handed, with its cell, to
    /// ``BinaryOrphanedContainers``, which keeps the cell alive until the container is dropped, so the container
    /// stays safe to call (it only throws). That happens only when a model keeps a container past its call.
    mutating func handOverContainersInUse() {
        entries.withUnsafeMutableBufferPointer { entries in
            for index in entries.indices where !isKnownUniquelyReferenced(&entries[index].box) {
                BinaryOrphanedContainers.shared.adopt(box: entries[index].box, cell: entries[index].cell)
            }
        }
    }

    /// For a state whose containers keep working after its call (the JSON codec's): if any kept container is
    /// still in use, calls `body` with its cell (which then retains the state itself) and stops keeping every
    /// container, so the state is not kept alive through its own cache. A state a model holds on to this way is
    /// never reused, so nothing is lost.
    ///
    /// - Returns: Whether any container was still in use.
    mutating func releaseAllIfAnyInUse(_ body: (Cell) -> Void) -> Bool {
        var released = false
        entries.withUnsafeMutableBufferPointer { entries in
            for index in entries.indices where !isKnownUniquelyReferenced(&entries[index].box) {
                body(entries[index].cell)
                released = true
            }
        }
        if released { entries.removeAll() }
        return released
    }

    /// Calls `body` with the cell of every kept container.
    func forEachCell(_ body: (Cell) -> Void) {
        for entry in entries {
            body(entry.cell)
        }
    }

    /// The box `container` consists of, or nil if it is not a single reference to one class instance.
    private static func box<Container>(of container: Container) -> AnyObject? {
        guard MemoryLayout<Container>.size == MemoryLayout<UnsafeRawPointer>.size,
            MemoryLayout<Container>.alignment == MemoryLayout<UnsafeRawPointer>.alignment
        else { return nil }
        let children = Mirror(reflecting: container).children
        guard children.count == 1, let stored = children.first?.value, type(of: stored) is AnyClass else {
            return nil
        }
        let instance = stored as AnyObject
        // Compare addresses before treating the container's bits as a reference, so nothing is retained that is
        // not an object.
        let bits = withUnsafeBytes(of: container) { $0.load(as: UInt.self) }
        guard bits == UInt(bitPattern: ObjectIdentifier(instance)) else { return nil }
        return instance
    }
}

/// Turns a container box back into the container that consists of it, for one container type.
///
/// A method of a generic class finds its type parameters in the class metadata of `self`, so calling
/// ``container(from:)`` looks nothing up: the metadata was found once, when the maker was created.
final class BinaryContainerMaker<Container> {
    /// The container that consists of `box`; the cache checked that a `Container` is exactly one such reference.
    func container(from box: AnyObject) -> Container {
        unsafeBitCast(box, to: Container.self)
    }
}
