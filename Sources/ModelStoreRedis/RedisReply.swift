import CHiredis

/// A Redis reply, copied out of hiredis's `redisReply` (which is freed at once).
enum RedisReply: Sendable, Equatable {
    case string([UInt8])
    case status(String)
    case error(String)
    case integer(Int64)
    case array([RedisReply])
    case null

    /// Copies `reply` (not freed here).
    init(_ reply: UnsafePointer<redisReply>) {
        let value = reply.pointee
        switch value.type {
        case REDIS_REPLY_STRING:
            self = .string(Self.bytes(value.str, value.len))
        case REDIS_REPLY_STATUS:
            self = .status(String(decoding: Self.bytes(value.str, value.len), as: UTF8.self))
        case REDIS_REPLY_ERROR:
            self = .error(String(decoding: Self.bytes(value.str, value.len), as: UTF8.self))
        case REDIS_REPLY_INTEGER:
            self = .integer(Int64(value.integer))
        case REDIS_REPLY_ARRAY:
            var elements: [RedisReply] = []
            elements.reserveCapacity(Int(value.elements))
            for index in 0..<Int(value.elements) {
                if let element = value.element?[index] { elements.append(RedisReply(element)) } else { elements.append(.null) }
            }
            self = .array(elements)
        case REDIS_REPLY_NIL:
            self = .null
        default:
            self = .error("a reply of type \(value.type), which ModelStoreRedis does not read")
        }
    }

    private static func bytes(_ pointer: UnsafeMutablePointer<CChar>?, _ length: Int) -> [UInt8] {
        guard let pointer, length > 0 else { return [] }
        return Array(UnsafeRawBufferPointer(start: pointer, count: length))
    }

    /// The bytes of a string reply; nil for anything else.
    var bytes: [UInt8]? {
        if case .string(let bytes) = self { return bytes }
        return nil
    }

    /// A string or status reply as text.
    var text: String? {
        switch self {
        case .string(let bytes): return String(decoding: bytes, as: UTF8.self)
        case .status(let text): return text
        default: return nil
        }
    }

    var integer: Int64? {
        switch self {
        case .integer(let value): return value
        case .string(let bytes): return Int64(String(decoding: bytes, as: UTF8.self))
        default: return nil
        }
    }

    var isError: Bool {
        if case .error = self { return true }
        return false
    }
}

/// A Redis command's failure: the connection broke (or timed out), or Redis answered an error.
struct RedisFailure: Error, CustomStringConvertible {
    var description: String
    /// Whether the connection can no longer be used (an I/O error or a timeout, after which a
    /// reply may still arrive and be mistaken for the next command's).
    var brokeConnection: Bool
}
