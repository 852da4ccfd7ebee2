import CHiredis
import Foundation

/// Where and how to reach Redis: what every connection of a tier is opened with.
struct RedisEndpoint: Sendable {
    var host: String
    var port: Int
    var password: String?
    var database: Int
    var connectTimeout: Duration
    var commandTimeout: Duration
}

/// One connection to Redis: the one owner of its `redisContext`, freed in `deinit`.
///
/// Not thread-safe: it is used by one thread at a time, the one that holds it (the pool hands a
/// connection to one caller at a time, on the pool's own threads; the invalidation reader keeps
/// its own on its own thread). hiredis's calls block, so they never run on Swift's cooperative
/// pool. After an I/O error or a timeout the connection is broken (a late reply could be taken
/// for the next command's) and is never used again.
final class RedisConnection: @unchecked Sendable {
    private let context: UnsafeMutablePointer<redisContext>
    /// Set once a call failed on the connection itself.
    private(set) var isBroken = false
    /// Where ``getWithLifetime(keyCount:writeKey:)`` lays out its commands (kept, so the hot
    /// read allocates nothing for them), and how many bytes it holds.
    private var commandBuffer = UnsafeMutablePointer<UInt8>.allocate(capacity: 256)
    private var commandCapacity = 256

    /// Connects (within the endpoint's connect timeout), sets the command timeout, turns on TCP
    /// keep-alive, then authenticates and selects the database if the endpoint says so.
    init(_ endpoint: RedisEndpoint) throws(RedisFailure) {
        guard
            let context = endpoint.host.withCString({ host in
                redisConnectWithTimeout(host, Int32(endpoint.port), Self.timeval(endpoint.connectTimeout))
            })
        else {
            throw RedisFailure(description: "could not allocate a Redis connection", brokeConnection: true)
        }
        if context.pointee.err != 0 {
            let message = Self.message(of: context)
            redisFree(context)
            throw RedisFailure(
                description: "could not connect to Redis at \(endpoint.host):\(endpoint.port): \(message)",
                brokeConnection: true)
        }
        self.context = context
        _ = redisSetTimeout(context, Self.timeval(endpoint.commandTimeout))
        _ = redisEnableKeepAlive(context)
        if let password = endpoint.password {
            try expectOK(command(["AUTH", password].map { Array($0.utf8) }), "AUTH")
        }
        if endpoint.database != 0 {
            try expectOK(command(["SELECT", String(endpoint.database)].map { Array($0.utf8) }), "SELECT")
        }
    }

    deinit {
        redisFree(context)
        commandBuffer.deallocate()
    }

    /// Sets how long a reply may take from now on (the invalidation reader's blocking reads
    /// wait longer than a command).
    func setTimeout(_ timeout: Duration) {
        _ = redisSetTimeout(context, Self.timeval(timeout))
    }

    /// Sends one command and returns its reply (an error reply is returned, not thrown).
    func command(_ arguments: [[UInt8]]) throws(RedisFailure) -> RedisReply {
        try pipeline([arguments])[0]
    }

    /// Sends `commands` in one write and reads their replies in order: one round trip.
    func pipeline(_ commands: [[[UInt8]]]) throws(RedisFailure) -> [RedisReply] {
        guard !isBroken else { throw RedisFailure(description: "the connection is broken", brokeConnection: true) }
        for arguments in commands {
            let status = Self.withArgumentVector(arguments) { count, vector, lengths in
                redisAppendCommandArgv(context, count, vector, lengths)
            }
            guard status == REDIS_OK else { throw broken() }
        }
        var replies: [RedisReply] = []
        replies.reserveCapacity(commands.count)
        for _ in commands {
            var raw: UnsafeMutableRawPointer? = nil
            guard redisGetReply(context, &raw) == REDIS_OK, let raw else { throw broken() }
            let reply = raw.assumingMemoryBound(to: redisReply.self)
            replies.append(RedisReply(reply))
            freeReplyObject(raw)
        }
        return replies
    }

    /// `GET key` and `PTTL key` in one write, their two replies read: one round trip. The key is
    /// `keyCount` bytes that `writeKey` writes (once: the second command copies them). The commands are laid out in Redis's
    /// protocol here, in a buffer the connection keeps from one call to the next, and handed to
    /// hiredis as they are: a Redis read on a local miss is the tier's hottest call, and hiredis's
    /// own formatting of an argument vector cost about as much as the rest of the tier's work.
    /// The lifetime is `PTTL`'s answer (nil if it was not a number), read off hiredis's reply
    /// without making a ``RedisReply`` of it.
    func getWithLifetime(keyCount: Int, writeKey: (inout ByteWriter) -> Void) throws(RedisFailure) -> (
        value: RedisReply, lifetime: Int64?
    ) {
        guard !isBroken else { throw RedisFailure(description: "the connection is broken", brokeConnection: true) }
        // Per command: *2\r\n$<the word's length>\r\n<the word>\r\n$<the key's length>\r\n<the key>\r\n
        let needed = 2 * (keyCount + 40)
        if needed > commandCapacity {
            commandBuffer.deallocate()
            commandCapacity = max(needed, 2 * commandCapacity)
            commandBuffer = .allocate(capacity: commandCapacity)
        }
        var writer = ByteWriter(commandBuffer)
        writer.write("*2\r\n$3\r\nGET\r\n$")
        writer.writeDecimal(keyCount)
        writer.write("\r\n")
        let keyStart = writer.count
        writeKey(&writer)
        precondition(writer.count - keyStart == keyCount, "a key of another length than announced")
        writer.write("\r\n*2\r\n$4\r\nPTTL\r\n$")
        writer.writeDecimal(keyCount)
        writer.write("\r\n")
        // The key again, copied from the GET's rather than written a second time.
        writer.write(UnsafeRawBufferPointer(start: commandBuffer + keyStart, count: keyCount))
        writer.write("\r\n")
        let status = commandBuffer.withMemoryRebound(to: CChar.self, capacity: writer.count) { command in
            redisAppendFormattedCommand(context, command, writer.count)
        }
        guard status == REDIS_OK else { throw broken() }
        let value = try nextReply()
        return (value, try nextIntegerReply())
    }

    /// Reads the next reply (sent earlier) as an integer (a number in a string too, as
    /// ``RedisReply/integer`` reads one); nil for any other reply. Freed at once.
    private func nextIntegerReply() throws(RedisFailure) -> Int64? {
        var raw: UnsafeMutableRawPointer? = nil
        guard redisGetReply(context, &raw) == REDIS_OK, let raw else { throw broken() }
        defer { freeReplyObject(raw) }
        let reply = raw.assumingMemoryBound(to: redisReply.self)
        switch reply.pointee.type {
        case REDIS_REPLY_INTEGER: return Int64(reply.pointee.integer)
        case REDIS_REPLY_STRING: return RedisReply(reply).integer
        default: return nil
        }
    }

    /// Reads the next reply (sent earlier), copied out and freed.
    private func nextReply() throws(RedisFailure) -> RedisReply {
        var raw: UnsafeMutableRawPointer? = nil
        guard redisGetReply(context, &raw) == REDIS_OK, let raw else { throw broken() }
        defer { freeReplyObject(raw) }
        return RedisReply(raw.assumingMemoryBound(to: redisReply.self))
    }

    private func expectOK(_ reply: RedisReply, _ what: String) throws(RedisFailure) {
        guard case .status = reply else {
            isBroken = true
            throw RedisFailure(description: "\(what) failed: \(reply)", brokeConnection: true)
        }
    }

    private func broken() -> RedisFailure {
        isBroken = true
        // hiredis reports a reply that did not come within the timeout as the socket's EAGAIN.
        if context.pointee.err == REDIS_ERR_IO, errno == EAGAIN || errno == EWOULDBLOCK {
            return RedisFailure(description: "timed out: no reply from Redis within the command timeout", brokeConnection: true)
        }
        return RedisFailure(description: Self.message(of: context), brokeConnection: true)
    }

    private static func message(of context: UnsafeMutablePointer<redisContext>) -> String {
        withUnsafeBytes(of: context.pointee.errstr) { bytes in
            let text = bytes.prefix { $0 != 0 }
            return text.isEmpty ? "error \(context.pointee.err)" : String(decoding: text, as: UTF8.self)
        }
    }

    /// Lays `arguments` out in one buffer and calls `body` with hiredis's argument vector and
    /// lengths (binary-safe: any byte, NUL included).
    private static func withArgumentVector<Result>(
        _ arguments: [[UInt8]],
        _ body: (Int32, UnsafeMutablePointer<UnsafePointer<CChar>?>, UnsafePointer<Int>) -> Result
    ) -> Result {
        var joined: [UInt8] = []
        joined.reserveCapacity(arguments.reduce(1) { $0 + $1.count })
        var offsets: [Int] = []
        var lengths: [Int] = []
        for argument in arguments {
            offsets.append(joined.count)
            lengths.append(argument.count)
            joined.append(contentsOf: argument)
        }
        joined.append(0)  // never empty, so the base address exists
        return joined.withUnsafeBufferPointer { buffer in
            let base = UnsafeRawPointer(buffer.baseAddress!).assumingMemoryBound(to: CChar.self)
            var vector = offsets.map { Optional(base + $0) }
            return vector.withUnsafeMutableBufferPointer { vector in
                lengths.withUnsafeBufferPointer { lengths in
                    body(Int32(arguments.count), vector.baseAddress!, lengths.baseAddress!)
                }
            }
        }
    }

    private static func timeval(_ duration: Duration) -> Foundation.timeval {
        let (seconds, attoseconds) = duration.components
        return Foundation.timeval(tv_sec: Int(max(0, seconds)), tv_usec: Int(max(0, attoseconds) / 1_000_000_000_000))
    }
}
