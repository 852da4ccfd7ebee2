import CHiredisBaseline
import Foundation

/// A bare hiredis connection: the baseline a Redis hit through the shared tier is compared with
/// (the same client library, the same server, the same record keys), and the experiment's own
/// commands (`SCAN`, `FLUSHALL`). Used by one thread at a time.
final class RawRedis: @unchecked Sendable {
    private let context: UnsafeMutablePointer<redisContext>

    init(port: Int) throws {
        var timeout = timeval(tv_sec: 2, tv_usec: 0)
        guard let context = redisConnectWithTimeout("127.0.0.1", Int32(port), timeout), context.pointee.err == 0 else {
            throw BenchmarkFailure("could not connect to redis-server on port \(port)")
        }
        timeout = timeval(tv_sec: 5, tv_usec: 0)
        _ = redisSetTimeout(context, timeout)
        self.context = context
    }

    deinit { redisFree(context) }

    /// `GET key`: the value's bytes copied out, as any client hands them to its caller; nil for none.
    @inline(never)
    func get(_ key: [UInt8]) -> [UInt8]? {
        appendCommand("GET", key)
        return take { Self.bytes($0) }
    }

    /// `GET key` and `PTTL key` in one write (pipelined), both replies read: what the tier sends.
    @inline(never)
    func getWithLifetime(_ key: [UInt8]) -> ([UInt8]?, Int64) {
        appendCommand("GET", key)
        appendCommand("PTTL", key)
        let value = take { Self.bytes($0) }
        let lifetime = take { Int64($0.pointee.integer) }
        return (value, lifetime ?? -2)
    }

    /// Every key that matches `pattern` (`SCAN`, 1,000 at a time).
    func keys(matching pattern: String) -> [[UInt8]] {
        var cursor = "0"
        var found: [[UInt8]] = []
        repeat {
            let reply = command(["SCAN", cursor, "MATCH", pattern, "COUNT", "1000"])
            guard let reply, reply.pointee.type == REDIS_REPLY_ARRAY, reply.pointee.elements == 2 else { break }
            let parts = reply.pointee.element!
            cursor = String(decoding: Self.bytes(parts[0]!) ?? [], as: UTF8.self)
            let batch = parts[1]!.pointee
            for index in 0..<Int(batch.elements) { if let key = Self.bytes(batch.element![index]!) { found.append(key) } }
            freeReplyObject(reply)
        } while cursor != "0"
        return found
    }

    /// Runs a command and drops its reply.
    func run(_ arguments: [String]) {
        if let reply = command(arguments) { freeReplyObject(reply) }
    }

    private func command(_ arguments: [String]) -> UnsafeMutablePointer<redisReply>? {
        append(arguments.dropLast().map { $0 }, Array(arguments.last!.utf8))
        var raw: UnsafeMutableRawPointer? = nil
        guard redisGetReply(context, &raw) == REDIS_OK, let raw else { return nil }
        return raw.assumingMemoryBound(to: redisReply.self)
    }

    /// Appends `word key` without allocating: the tightest a client can send a command.
    @inline(__always)
    private func appendCommand(_ word: StaticString, _ key: [UInt8]) {
        key.withUnsafeBufferPointer { key in
            withUnsafeTemporaryAllocation(of: UnsafePointer<CChar>?.self, capacity: 2) { pointers in
                withUnsafeTemporaryAllocation(of: Int.self, capacity: 2) { lengths in
                    pointers[0] = UnsafeRawPointer(word.utf8Start).assumingMemoryBound(to: CChar.self)
                    pointers[1] = UnsafeRawPointer(key.baseAddress!).assumingMemoryBound(to: CChar.self)
                    lengths[0] = word.utf8CodeUnitCount
                    lengths[1] = key.count
                    _ = redisAppendCommandArgv(context, 2, pointers.baseAddress!, lengths.baseAddress!)
                }
            }
        }
    }

    /// Appends `words` then `last` as one command (binary-safe for `last`).
    private func append(_ words: [String], _ last: [UInt8]) {
        var arguments = words.map { Array($0.utf8) }
        arguments.append(last)
        var pointers: [UnsafePointer<CChar>?] = []
        var lengths: [Int] = []
        let buffers = arguments.map { argument -> UnsafeMutablePointer<CChar> in
            let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: max(1, argument.count))
            argument.withUnsafeBytes { UnsafeMutableRawPointer(buffer).copyMemory(from: $0.baseAddress!, byteCount: argument.count) }
            return buffer
        }
        defer { buffers.forEach { $0.deallocate() } }
        for (buffer, argument) in zip(buffers, arguments) {
            pointers.append(UnsafePointer(buffer))
            lengths.append(argument.count)
        }
        _ = redisAppendCommandArgv(context, Int32(arguments.count), &pointers, &lengths)
    }

    private func take<Value>(_ read: (UnsafeMutablePointer<redisReply>) -> Value?) -> Value? {
        var raw: UnsafeMutableRawPointer? = nil
        guard redisGetReply(context, &raw) == REDIS_OK, let raw else { return nil }
        let reply = raw.assumingMemoryBound(to: redisReply.self)
        defer { freeReplyObject(raw) }
        return read(reply)
    }

    private static func bytes(_ reply: UnsafeMutablePointer<redisReply>) -> [UInt8]? {
        guard reply.pointee.type == REDIS_REPLY_STRING, let pointer = reply.pointee.str else { return nil }
        return Array(UnsafeRawBufferPointer(start: pointer, count: reply.pointee.len))
    }
}
