import Foundation

// Generic `decode<T>` calls reach the decoder unspecialized, so it looks at the runtime type and reads a few types
// directly. For Date, Data, URL and Decimal this is not only faster but required: Foundation's JSONDecoder
// special-cases exactly these four in every generic decode (Data from a base64 string, URL from a string, Decimal
// from the number's text), bypassing their own Codable conformances. The others (scalars and arrays of the
// commonest scalars) give the same result their conformances would, without containers or dynamic dispatch.

/// The types the decoder reads itself, whatever the calling container's overload.
enum JSONFastPath {
    case none
    case string, int, double, bool, date, float
    case int64, int32, int16, int8, uint, uint64, uint32, uint16, uint8
    case data, url, decimal
    /// Arrays read in one loop with no container, no per-element dispatch and one allocation.
    case stringArray, intArray, doubleArray

    /// Looks `type` up in a small hash table of metadata pointers, one multiply and a probe or two; comparing
    /// with each candidate's metadata would cost a call per candidate for every nested model.
    @inline(__always)
    init(_ type: Any.Type) {
        self = JSONFastPath.table.value(for: type)
    }

    private static let table = TypeTable<JSONFastPath>([
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
        (URL.self, .url),
        (Decimal.self, .decimal),
        ([Int].self, .intArray),
        ([Double].self, .doubleArray),
    ], missing: .none)
}

/// Reinterprets a value whose type the caller has just checked to be `Target`.
@inline(__always)
private func cast<Source, Target>(_ value: Source, to _: Target.Type) -> Target {
    assert(Source.self == Target.self)
    return unsafeBitCast(value, to: Target.self)
}

extension JSONDecodingState {
    /// Reads a value of a fast-path type; `kind` must be `JSONFastPath(Value.self)` and not `.none`.
    func decodeFastPath<Value>(_ kind: JSONFastPath, as _: Value.Type, at index: Int) throws(JSONValueError) -> Value {
        switch kind {
        case .string: return cast(try String.read(from: self, at: index), to: Value.self)
        case .int: return cast(try Int.read(from: self, at: index), to: Value.self)
        case .double: return cast(try Double.read(from: self, at: index), to: Value.self)
        case .bool: return cast(try Bool.read(from: self, at: index), to: Value.self)
        case .date:
            // Date's own Codable reads a Double (seconds since 2001), as Foundation's default strategy does.
            let interval = try Double.read(from: self, at: index)
            return cast(Date(timeIntervalSinceReferenceDate: interval), to: Value.self)
        case .float: return cast(try Float.read(from: self, at: index), to: Value.self)
        case .int64: return cast(try Int64.read(from: self, at: index), to: Value.self)
        case .int32: return cast(try Int32.read(from: self, at: index), to: Value.self)
        case .int16: return cast(try Int16.read(from: self, at: index), to: Value.self)
        case .int8: return cast(try Int8.read(from: self, at: index), to: Value.self)
        case .uint: return cast(try UInt.read(from: self, at: index), to: Value.self)
        case .uint64: return cast(try UInt64.read(from: self, at: index), to: Value.self)
        case .uint32: return cast(try UInt32.read(from: self, at: index), to: Value.self)
        case .uint16: return cast(try UInt16.read(from: self, at: index), to: Value.self)
        case .uint8: return cast(try UInt8.read(from: self, at: index), to: Value.self)
        case .data: return cast(try readData(at: index), to: Value.self)
        case .url: return cast(try readURL(at: index), to: Value.self)
        case .decimal:
            let text = text(of: try expect(.number, at: index))
            return cast(try JSONNumberParser.decimal(text), to: Value.self)
        case .stringArray: return cast(try readArray(of: String.self, at: index), to: Value.self)
        case .intArray: return cast(try readArray(of: Int.self, at: index), to: Value.self)
        case .doubleArray: return cast(try readArray(of: Double.self, at: index), to: Value.self)
        case .none: preconditionFailure("decodeFastPath called for a type without a fast path")
        }
    }

    /// Foundation's default `Data` strategy: a base64 string. Foundation tries its own base64 decoder on the raw
    /// bytes first and `Data(base64Encoded:)` on the String second; both implement the same alphabet and padding
    /// rules, and a string the second rejects is left to Foundation.
    private func readData(at index: Int) throws(JSONValueError) -> Data {
        guard let data = Data(base64Encoded: try String.read(from: self, at: index)) else {
            throw .needsFoundation
        }
        return data
    }

    /// Foundation reads a URL from its absolute string, with `URL(string:)`.
    private func readURL(at index: Int) throws(JSONValueError) -> URL {
        guard let url = URL(string: try String.read(from: self, at: index)) else { throw .invalid }
        return url
    }

    /// An array of scalars, as `Array.init(from:)` would read it element by element through an unkeyed container.
    private func readArray<Element: JSONScalar>(of _: Element.Type, at index: Int) throws(JSONValueError) -> [Element] {
        let entry = try expect(.array, at: index)
        let count = Int(entry.count)
        var array: [Element] = []
        array.reserveCapacity(count)
        // Scalars take one entry each; a container element fails in `read` before the index could go wrong.
        var element = index &+ 1
        for _ in 0..<count {
            array.append(try Element.read(from: self, at: element))
            element &+= 1
        }
        return array
    }
}
