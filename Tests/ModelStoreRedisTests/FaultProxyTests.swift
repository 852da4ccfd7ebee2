import Foundation
import ModelStoreTestSupport
import Testing
@testable import ModelStoreRedis

/// `scripts/fault-proxy` does what each control verb says, seen through raw Redis commands sent
/// through it: the fleet's fault tests (`FleetFaultTests`) rely on exactly these behaviours.
@Suite(.serialized, .enabled(if: RedisServer.isInstalled, "needs redis-server (scripts/install-dependencies)"))
struct FaultProxyTests {
    /// A raw connection to `port` on loopback whose replies may take `timeout`.
    static func connect(_ port: Int, timeout: Duration = .milliseconds(300)) throws -> RedisConnection {
        try RedisConnection(
            RedisEndpoint(
                host: "127.0.0.1", port: port, password: nil, database: 0, connectTimeout: .seconds(1),
                commandTimeout: timeout))
    }

    /// Waits until `server` has `count` clients blocked in a command (`BLPOP`).
    static func awaitBlocked(_ server: RedisServer, count: Int) throws -> Bool {
        try timeUntil {
            (try server.command(["INFO", "clients"]).text ?? "").contains("blocked_clients:\(count)")
        } != nil
    }

    /// Without faults, commands pass both ways; `count` follows connections as they open and close.
    @Test func itForwardsAndCountsOpenConnections() throws {
        let server = try RedisServer()
        let proxy = try FaultProxy(server)
        #expect(try proxy.openConnections == 0)
        var first: RedisConnection? = try Self.connect(proxy.port)
        let second = try Self.connect(proxy.port)
        #expect(try first?.command([Array("SET".utf8), Array("k".utf8), Array("v".utf8)]) == .status("OK"))
        #expect(try second.command([Array("GET".utf8), Array("k".utf8)]) == .string(Array("v".utf8)))
        #expect(try proxy.openConnections == 2)
        first = nil
        #expect(try timeUntil { try proxy.openConnections == 1 } != nil)
    }

    /// `hold`: a command sent on a held connection gets no reply, and does not reach the server,
    /// until `release`, while a new connection's commands answer at once; replies to commands
    /// sent before the hold still come back; on release the held commands arrive in order, even
    /// from a client that gave up and closed meanwhile.
    @Test func holdStallsWhatOpenConnectionsSendUntilRelease() throws {
        let server = try RedisServer()
        let proxy = try FaultProxy(server)
        var held: RedisConnection? = try Self.connect(proxy.port)
        #expect(try held?.command([Array("PING".utf8)]) == .status("PONG"))
        let waiting = try Self.connect(proxy.port, timeout: .seconds(5))
        let popped = onThread { try waiting.command(["BLPOP", "queue", "5"].map { Array($0.utf8) }) }
        #expect(try Self.awaitBlocked(server, count: 1))
        try proxy.hold()

        #expect(throws: RedisFailure.self) { try held?.pipeline((1...3).map { ["RPUSH", "list", "\($0)"].map { Array($0.utf8) } }) }
        // It gave up (timed out) and closes: what it sent is still on its way.
        held = nil
        let fresh = try Self.connect(proxy.port)
        #expect(try fresh.command([Array("PING".utf8)]) == .status("PONG"))
        #expect(try server.command(["LLEN", "list"]) == .integer(0))
        // Server to client still flows: the blocked command's reply arrives.
        try server.command(["RPUSH", "queue", "x"])
        #expect(try popped()?.get() == .array([.string(Array("queue".utf8)), .string(Array("x".utf8))]))

        try proxy.release()
        #expect(
            try timeUntil { try server.command(["LRANGE", "list", "0", "-1"]) == .array(["1", "2", "3"].map { .string(Array($0.utf8)) }) }
                != nil)
    }

    /// `delay`: every chunk waits, both ways, from the command on; 0 turns it off.
    @Test func delaySlowsBothDirections() throws {
        let server = try RedisServer()
        let proxy = try FaultProxy(server)
        let connection = try Self.connect(proxy.port, timeout: .seconds(3))
        let clock = ContinuousClock()
        try proxy.delay(milliseconds: 200)
        var start = clock.now
        #expect(try connection.command([Array("PING".utf8)]) == .status("PONG"))
        let delayed = clock.now - start
        // 200 ms there and 200 ms back.
        #expect(delayed >= .milliseconds(400) && delayed < .seconds(2), "\(delayed)")
        try proxy.delay(milliseconds: 0)
        start = clock.now
        #expect(try connection.command([Array("PING".utf8)]) == .status("PONG"))
        #expect(clock.now - start < .milliseconds(150), "\(clock.now - start)")
    }

    /// `partition`: nothing moves either way on open connections, and new ones are accepted but
    /// reach no server, until `heal`, which delivers what was held, in order, both ways.
    @Test func partitionHoldsEverythingUntilHeal() throws {
        let server = try RedisServer()
        let proxy = try FaultProxy(server)
        let open = try Self.connect(proxy.port)
        #expect(try open.command([Array("PING".utf8)]) == .status("PONG"))
        let waiting = try Self.connect(proxy.port, timeout: .seconds(5))
        let popped = onThread { try waiting.command(["BLPOP", "queue", "5"].map { Array($0.utf8) }) }
        #expect(try Self.awaitBlocked(server, count: 1))
        let clientsBefore = try #require(try Self.connectedClients(server))
        try proxy.partition()

        #expect(throws: RedisFailure.self) { try open.command(["SET", "from-open", "1"].map { Array($0.utf8) }) }
        let late = try Self.connect(proxy.port)
        #expect(throws: RedisFailure.self) { try late.command(["SET", "from-late", "1"].map { Array($0.utf8) }) }
        try server.command(["RPUSH", "queue", "x"])
        usleep(300_000)
        #expect(try server.command(["EXISTS", "from-open", "from-late"]) == .integer(0))
        // The late connection never reached the server; the blocked reply is held too.
        #expect(try timeUntil { try Self.connectedClients(server) == clientsBefore } != nil)
        #expect(try proxy.openConnections == 3)

        try proxy.heal()
        #expect(try popped()?.get() == .array([.string(Array("queue".utf8)), .string(Array("x".utf8))]))
        #expect(try timeUntil { try server.command(["EXISTS", "from-open", "from-late"]) == .integer(2) } != nil)
    }

    /// `drop`: every open connection is reset (its next command fails at once) and what it held
    /// is lost; new connections work.
    @Test func dropResetsEveryOpenConnection() throws {
        let server = try RedisServer()
        let proxy = try FaultProxy(server)
        let open = try Self.connect(proxy.port, timeout: .seconds(3))
        let holding = try Self.connect(proxy.port)
        #expect(try open.command([Array("PING".utf8)]) == .status("PONG"))
        #expect(try holding.command([Array("PING".utf8)]) == .status("PONG"))
        try proxy.hold()
        #expect(throws: RedisFailure.self) { try holding.command(["SET", "kept", "1"].map { Array($0.utf8) }) }
        try proxy.drop()
        let clock = ContinuousClock()
        let start = clock.now
        #expect(throws: RedisFailure.self) { try open.command([Array("PING".utf8)]) }
        #expect(clock.now - start < .seconds(1), "a reset, not a timeout: \(clock.now - start)")
        #expect(try timeUntil { try proxy.openConnections == 0 } != nil)
        try proxy.release()
        #expect(try Self.connect(proxy.port).command([Array("PING".utf8)]) == .status("PONG"))
        #expect(try server.command(["EXISTS", "kept"]) == .integer(0))
    }

    /// `retarget`: new connections reach the new server; open ones keep the old one.
    @Test func retargetSendsNewConnectionsElsewhere() throws {
        let first = try RedisServer()
        let second = try RedisServer()
        try first.command(["SET", "where", "first"])
        try second.command(["SET", "where", "second"])
        let proxy = try FaultProxy(first)
        let before = try Self.connect(proxy.port)
        let get = ["GET", "where"].map { Array($0.utf8) }
        #expect(try before.command(get) == .string(Array("first".utf8)))
        try proxy.retarget(to: second.port)
        #expect(try Self.connect(proxy.port).command(get) == .string(Array("second".utf8)))
        #expect(try before.command(get) == .string(Array("first".utf8)))
    }

    /// A command the proxy cannot carry out is refused, not ignored.
    @Test func aMalformedCommandIsRefused() throws {
        let server = try RedisServer()
        let proxy = try FaultProxy(server)
        #expect(throws: RedisServerError.self) { try proxy.retarget(to: 0) }
        #expect(throws: RedisServerError.self) { try proxy.delay(milliseconds: -1) }
    }

    /// `connected_clients` of `INFO clients`.
    static func connectedClients(_ server: RedisServer) throws -> Int? {
        let info = try server.command(["INFO", "clients"]).text ?? ""
        let line = info.split(whereSeparator: \.isNewline).first { $0.hasPrefix("connected_clients:") }
        return line.flatMap { Int($0.split(separator: ":")[1]) }
    }
}
