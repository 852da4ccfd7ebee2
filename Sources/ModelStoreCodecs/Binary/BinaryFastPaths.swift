import Foundation

// Generic `encode<T>`/`decode<T>` calls reach the codec unspecialized, so the codec looks at the runtime type (one
// pointer compare per candidate) and handles primitives and a few Foundation types directly. That skips their
// Codable conformances, which for `Data` would write one element per byte and for the others would add a container
// or a dynamic cast per value. `[String]` elements, for example, arrive here, not at the `String` overloads.
//
// The kind is a plain enum rather than an optional result so that no `Optional<T>` metadata has to be looked up at
// run time for every value; those lookups were a fifth of the decode time.

/// The types the codec reads and writes itself, whatever the calling container's overload.
enum BinaryFastPath {
    case none
    case string, int, double, bool, date, float
    case int64, int32, int16, int8, uint, uint64, uint32, uint16, uint8
    case data, uuid, url
    /// Arrays of the commonest element types, read and written in one loop with no container box, no per-element
    /// dispatch and one allocation. They use the ordinary unkeyed layout, so either side may take the slow path.
    case stringArray, intArray, doubleArray

    /// Looks the type up in a small hash table of metadata pointers. Comparing `type == Date.self` directly would
    /// call a metadata accessor per candidate, and even a linear scan of the pointers cost more than writing the
    /// value for types that have no fast path (every nested model), since those had to be compared with them all.
    init(_ type: Any.Type) {
        self = BinaryFastPath.index.value(for: type)
    }

    private static let index = TypeTable<BinaryFastPath>([
        (String.self, .string),
        (Int.self, .int),
        (Double.self, .double),
        (Bool.self, .bool),
        (Date.self, .date),
        ([String].self, .stringArray),
        (Float.self, .float),
        (Int64.self, .int64),
        (Int32.self, .int32),
        (Int16.self, .int16),
        (Int8.self, .int8),
        (UInt.self, .uint),
        (UInt64.self, .uint64),
        (UInt32.self, .uint32),
        (UInt16.self, .uint16),
        (UInt8.self, .uint8),
        (Data.self, .data),
        (UUID.self, .uuid),
        (URL.self, .url),
        ([Int].self, .intArray),
        ([Double].self, .doubleArray),
    ], missing: .none)

    /// Whether a stored value with `tag` is read by the fast path. The Foundation types are also accepted in the
    /// form their own Codable conformance writes (a Date as any number, a UUID as a string, ...), and those go
    /// through `init(from:)`.
    func reads(_ tag: UInt8) -> Bool {
        switch self {
        case .none: return false
        case .date: return tag == BinaryFormat.Tag.float64
        case .data, .uuid: return tag == BinaryFormat.Tag.bytes
        case .url: return tag == BinaryFormat.Tag.string
        case .stringArray, .intArray, .doubleArray: return tag == BinaryFormat.Tag.unkeyed
        default: return true
        }
    }

    var isArray: Bool {
        switch self {
        case .stringArray, .intArray, .doubleArray: return true
        default: return false
        }
    }
}

/// Reinterprets a value whose type the caller has just checked to be `Target`.
@inline(__always)
private func cast<Source, Target>(_ value: Source, to _: Target.Type) -> Target {
    assert(Source.self == Target.self)
    return unsafeBitCast(value, to: Target.self)
}

extension BinaryEncodingState {
    /// Writes `value` directly if its type has a fast path, and returns whether it did.
    func encodeFastPath<Value: Encodable>(_ value: Value) -> Bool {
        switch BinaryFastPath(Value.self) {
        case .none: return false
        case .string: writer.writeString(cast(value, to: String.self))
        case .int: cast(value, to: Int.self).write(to: &writer)
        case .double: writer.writeDouble(cast(value, to: Double.self))
        case .bool: writer.writeBool(cast(value, to: Bool.self))
        // Date's own Codable stores the same Double, so either side may take the slow path.
        case .date: writer.writeDouble(cast(value, to: Date.self).timeIntervalSinceReferenceDate)
        case .float: writer.writeFloat(cast(value, to: Float.self))
        case .int64: cast(value, to: Int64.self).write(to: &writer)
        case .int32: cast(value, to: Int32.self).write(to: &writer)
        case .int16: cast(value, to: Int16.self).write(to: &writer)
        case .int8: cast(value, to: Int8.self).write(to: &writer)
        case .uint: cast(value, to: UInt.self).write(to: &writer)
        case .uint64: cast(value, to: UInt64.self).write(to: &writer)
        case .uint32: cast(value, to: UInt32.self).write(to: &writer)
        case .uint16: cast(value, to: UInt16.self).write(to: &writer)
        case .uint8: cast(value, to: UInt8.self).write(to: &writer)
        case .data: cast(value, to: Data.self).withUnsafeBytes { writer.writeBytes($0) }
        case .uuid: withUnsafeBytes(of: cast(value, to: UUID.self).uuid) { writer.writeBytes($0) }
        // As JSONEncoder does: the absolute string, rather than URL's keyed {relative, base} form.
        case .url: writer.writeString(cast(value, to: URL.self).absoluteString)
        case .stringArray: return writeArray(cast(value, to: [String].self))
        case .intArray: return writeArray(cast(value, to: [Int].self))
        case .doubleArray: return writeArray(cast(value, to: [Double].self))
        }
        return true
    }

    /// Writes a whole unkeyed container at once; returns false (and writes nothing) if it would be too large, so the
    /// slow path reports the error.
    private func writeArray<Element: BinaryPrimitive>(_ array: [Element]) -> Bool {
        // A complete container, never part of the chain of open ones: its header is filled in right away.
        let header = writer.writeContainerHeader(BinaryFormat.Tag.unkeyed)
        for element in array {
            element.write(to: &writer)
        }
        guard writer.patchContainerHeader(at: header, count: array.count) else {
            writer.truncate(to: header)
            return false
        }
        return true
    }
}

extension BinaryDecodingState {
    /// Reads a value of a fast-path type; `kind` must be `BinaryFastPath(Value.self)` and read the stored tag.
    func decodeFastPath<Value: Decodable>(
        _ kind: BinaryFastPath,
        as _: Value.Type,
        at position: inout Int,
        limit: Int
    ) throws(BinaryReadError) -> Value {
        switch kind {
        case .string: return cast(try reader.string(at: &position, limit: limit), to: Value.self)
        case .int: return cast(try read(Int.self, at: &position, limit), to: Value.self)
        case .double: return cast(try reader.double(at: &position, limit: limit), to: Value.self)
        case .bool: return cast(try reader.bool(at: &position, limit: limit), to: Value.self)
        case .date:
            let interval = try reader.double(at: &position, limit: limit)
            return cast(Date(timeIntervalSinceReferenceDate: interval), to: Value.self)
        case .float: return cast(try reader.float(at: &position, limit: limit), to: Value.self)
        case .int64: return cast(try read(Int64.self, at: &position, limit), to: Value.self)
        case .int32: return cast(try read(Int32.self, at: &position, limit), to: Value.self)
        case .int16: return cast(try read(Int16.self, at: &position, limit), to: Value.self)
        case .int8: return cast(try read(Int8.self, at: &position, limit), to: Value.self)
        case .uint: return cast(try read(UInt.self, at: &position, limit), to: Value.self)
        case .uint64: return cast(try read(UInt64.self, at: &position, limit), to: Value.self)
        case .uint32: return cast(try read(UInt32.self, at: &position, limit), to: Value.self)
        case .uint16: return cast(try read(UInt16.self, at: &position, limit), to: Value.self)
        case .uint8: return cast(try read(UInt8.self, at: &position, limit), to: Value.self)
        case .data: return cast(Data(try reader.bytes(at: &position, limit: limit)), to: Value.self)
        case .uuid:
            let start = position
            let raw = try reader.bytes(at: &position, limit: limit)
            guard raw.count == MemoryLayout<uuid_t>.size else {
                position = start
                throw .malformed("a UUID needs 16 bytes, found \(raw.count)", at: start)
            }
            return cast(UUID(uuid: raw.loadUnaligned(as: uuid_t.self)), to: Value.self)
        case .url:
            let start = position
            let string = try reader.string(at: &position, limit: limit)
            guard let url = URL(string: string) else {
                position = start
                throw .malformed("\"\(string)\" is not a valid URL", at: start)
            }
            return cast(url, to: Value.self)
        case .none, .stringArray, .intArray, .doubleArray:
            preconditionFailure("decodeFastPath called for \(kind)")
        }
    }

    /// Reads an array with a fast path; `kind` must be `BinaryFastPath(Value.self)` and read the stored tag.
    ///
    /// - Parameter depth: The coding-path depth of the array itself; element errors report their index below it.
    func decodeArrayFastPath<Value: Decodable>(
        _ kind: BinaryFastPath,
        as _: Value.Type,
        at position: inout Int,
        limit: Int,
        depth: Int
    ) throws -> Value {
        switch kind {
        case .stringArray:
            return cast(try readArray(String.self, at: &position, limit: limit, depth: depth), to: Value.self)
        case .intArray:
            return cast(try readArray(Int.self, at: &position, limit: limit, depth: depth), to: Value.self)
        case .doubleArray:
            return cast(try readArray(Double.self, at: &position, limit: limit, depth: depth), to: Value.self)
        default: preconditionFailure("decodeArrayFastPath called for \(kind)")
        }
    }

    private func readArray<Element: BinaryPrimitive>(
        _: Element.Type,
        at position: inout Int,
        limit: Int,
        depth: Int
    ) throws -> [Element] {
        let bounds = try unkeyedContainer(at: position, limit: limit, depth: depth)
        var array: [Element] = []
        // The count was checked against the body's length, so this reservation is bounded by the input's size.
        array.reserveCapacity(bounds.count)
        var cursor = bounds.bodyStart
        for index in 0..<bounds.count {
            let key = BinaryCodingKey.index(index)
            array.append(try decodePrimitive(Element.self, at: &cursor, limit: bounds.bodyEnd, depth: depth, key: key))
        }
        position = bounds.bodyEnd
        return array
    }

    private func read<P: BinaryPrimitive>(
        _: P.Type,
        at position: inout Int,
        _ limit: Int
    ) throws(BinaryReadError) -> P {
        try P.read(from: reader, at: &position, limit: limit)
    }
}
