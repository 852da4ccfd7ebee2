import Foundation
@testable import ModelStoreRedis

/// Replication between two test servers, for failover tests: a replica follows a primary (or a
/// `FaultProxy` in front of one, so the test can cut the link), then is promoted.
extension RedisServer {
    /// Makes this server a replica of whatever listens on `port` on loopback (`REPLICAOF`), and
    /// waits until it has synchronised (its link is up), within 10 s.
    func replicate(fromPort port: Int) throws {
        let reply = try command(["REPLICAOF", "127.0.0.1", String(port)])
        guard case .status = reply else { throw RedisServerError(message: "REPLICAOF failed: \(reply)") }
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if try replication("master_link_status") == "up" { return }
            usleep(20_000)
        }
        throw RedisServerError(message: "the replica on port \(self.port) never synchronised")
    }

    /// Makes this replica a primary of its own (`REPLICAOF NO ONE`): what a failover does.
    func promote() throws {
        let reply = try command(["REPLICAOF", "NO", "ONE"])
        guard case .status = reply else { throw RedisServerError(message: "REPLICAOF NO ONE failed: \(reply)") }
    }

    /// One field of `INFO replication` (`master_repl_offset`, `slave_repl_offset`,
    /// `master_link_status`…); nil if the server does not report it.
    func replication(_ field: String) throws -> String? {
        let info = try command(["INFO", "replication"]).text ?? ""
        let line = info.split(whereSeparator: \.isNewline).first { $0.hasPrefix(field + ":") }
        return line.map { String($0.dropFirst(field.count + 1)) }
    }
}
