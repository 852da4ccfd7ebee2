/// Any JSON value, decoded without knowing the model type that was stored.
///
/// Decoding tries the cases that JSON leaves most often hold first (strings, then numbers),
/// since each failed attempt costs a thrown error and `dump` decodes every record.
enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    /// A number without a fraction that fits in 64 bits, kept exact (a `Double` would round
    /// identifiers above 2^53).
    case integer(Int64)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])
}

extension JSONValue: Codable {
    init(from decoder: any Decoder) throws {
        if let single = try? decoder.singleValueContainer() {
            if single.decodeNil() {
                self = .null
                return
            }
            if let string = try? single.decode(String.self) {
                self = .string(string)
                return
            }
            if let integer = try? single.decode(Int64.self) {
                self = .integer(integer)
                return
            }
            if let number = try? single.decode(Double.self) {
                self = .number(number)
                return
            }
            if let bool = try? single.decode(Bool.self) {
                self = .bool(bool)
                return
            }
        }
        if let keyed = try? decoder.container(keyedBy: AnyKey.self) {
            var members: [String: JSONValue] = [:]
            for key in keyed.allKeys {
                members[key.stringValue] = try keyed.decode(JSONValue.self, forKey: key)
            }
            self = .object(members)
            return
        }
        var unkeyed = try decoder.unkeyedContainer()
        var elements: [JSONValue] = []
        if let count = unkeyed.count { elements.reserveCapacity(count) }
        while !unkeyed.isAtEnd {
            elements.append(try unkeyed.decode(JSONValue.self))
        }
        self = .array(elements)
    }

    func encode(to encoder: any Encoder) throws {
        switch self {
        case .null:
            var single = encoder.singleValueContainer()
            try single.encodeNil()
        case .bool(let value):
            var single = encoder.singleValueContainer()
            try single.encode(value)
        case .integer(let value):
            var single = encoder.singleValueContainer()
            try single.encode(value)
        case .number(let value):
            var single = encoder.singleValueContainer()
            try single.encode(value)
        case .string(let value):
            var single = encoder.singleValueContainer()
            try single.encode(value)
        case .array(let elements):
            var unkeyed = encoder.unkeyedContainer()
            for element in elements { try unkeyed.encode(element) }
        case .object(let members):
            var keyed = encoder.container(keyedBy: AnyKey.self)
            for (key, value) in members {
                try keyed.encode(value, forKey: AnyKey(key))
            }
        }
    }
}

/// A coding key for object members whose names are only known at run time.
struct AnyKey: CodingKey {
    let stringValue: String
    let intValue: Int? = nil

    init(_ string: String) { stringValue = string }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { return nil }
}
