import Foundation
import ModelStoreTestSupport
import Testing
@testable import ModelStoreRedis

/// Three nodes as separate processes (`ModelStoreRedisNode`) sharing one `redis-server`.
@Suite(.serialized, .enabled(if: RedisServer.isInstalled, "needs redis-server (scripts/install-dependencies)"))
struct FleetProcessTests {
    /// A node process, driven line by line.
    final class Node {
        let directory: TemporaryDirectory
        let process: ChildProcess

        convenience init(_ server: RedisServer, environment: [String: String] = [:]) throws {
            try self.init(port: server.port, environment: environment)
        }

        /// A node whose tier connects to `port` (a server's or a `FaultProxy`'s), keeping its
        /// database in `directory` (another node's, to restart it where it left off).
        init(port: Int, directory: TemporaryDirectory = TemporaryDirectory(), environment: [String: String] = [:]) throws {
            self.directory = directory
            process = try ChildProcess(
                ChildProcess.executable(named: "ModelStoreRedisNode"),
                [String(port), directory.path, "fleet:"], environment: environment)
            guard process.readLine() == "ready" else { throw RedisServerError(message: "the node did not start") }
        }

        deinit {
            process.kill()
            process.finish()
        }

        func send(_ line: String) {
            process.process.standardInput.map { ($0 as? Pipe)?.fileHandleForWriting.write(Data((line + "\n").utf8)) }
        }

        func ask(_ line: String) -> String {
            send(line)
            return process.readLine() ?? "(ended)"
        }
    }

    @Test func aModelStoredOnOneProcessIsReadOnAnotherWithoutFetching() throws {
        let server = try RedisServer()
        let nodes = try (0..<3).map { _ in try Node(server) }
        #expect(nodes[0].ask("set user:1 ada") == "ok")
        #expect(nodes[1].ask("fetch user:1 0 1") == "fetches 0 values ada")
        #expect(nodes[2].ask("get user:1") == "ada")
    }

    @Test func overwritesAndRemovalsAreInvisibleOnOtherProcessesWithin100Milliseconds() throws {
        let server = try RedisServer()
        let a = try Node(server)
        let b = try Node(server)
        let keys = (0..<200).map { "k\($0)" }
        for key in keys {
            #expect(a.ask("set \(key) v1") == "ok")
            #expect(b.ask("get \(key)") == "v1")
        }
        // Measured by b from the moment it is asked, which is after a's write returned.
        var overwrite: [Duration] = []
        var removal: [Duration] = []
        for key in keys {
            #expect(a.ask("set \(key) v2") == "ok")
            let answer = b.ask("await \(key) v2 1000")
            overwrite.append(.microseconds(try #require(Int(answer), "\(answer)")))
        }
        for key in keys {
            #expect(a.ask("remove \(key)") == "ok")
            let answer = b.ask("await \(key) nil 1000")
            removal.append(.microseconds(try #require(Int(answer), "\(answer)")))
        }
        print("Across processes, after an overwrite returned, until the other reads it, \(keys.count) keys: \(Distribution(overwrite))")
        print("Across processes, after a removal returned, until the other misses it, \(keys.count) keys: \(Distribution(removal))")
        #expect(overwrite.max()! < .milliseconds(100))
        #expect(removal.max()! < .milliseconds(100))
    }

    @Test func threeProcessesWithTenCallersEachFetchOnce() throws {
        let server = try RedisServer()
        let nodes = try (0..<3).map { _ in try Node(server) }
        for node in nodes { node.send("fetch cold 300 10") }
        let answers = nodes.map { $0.process.readLine() ?? "(ended)" }
        let fetches = answers.compactMap { answer -> Int? in
            let words = answer.split(separator: " ")
            return words.count >= 2 && words[0] == "fetches" ? Int(words[1]) : nil
        }
        #expect(fetches.count == 3, "\(answers)")
        #expect(fetches.reduce(0, +) == 1, "\(answers)")
        // Every caller got the one fetched value.
        #expect(Set(answers.map { $0.split(separator: " ").last.map(String.init) ?? "" }).count == 1, "\(answers)")
    }

    @Test func aProcessKilledWhileHoldingTheFetchLockDelaysTheOthersOnlyUntilItExpires() throws {
        let server = try RedisServer()
        let environment = ["MODELSTORE_REDIS_LOCK_MS": "1000"]
        let holder = try Node(server, environment: environment)
        let other = try Node(server, environment: environment)
        holder.send("hold orphan")
        #expect(holder.process.readLine() == "holding")
        holder.process.kill()
        let clock = ContinuousClock()
        let start = clock.now
        let answer = other.ask("fetch orphan 0 3")
        let waited = clock.now - start
        #expect(answer.hasPrefix("fetches 1 values fetched-by-"), "\(answer)")
        // It waited for the lock (1 s) to expire, not for its 20 s hard timeout.
        #expect(waited < .seconds(5), "\(waited)")
        print("After the lock holder was killed, the other process fetched after \(waited)")
    }

    /// A node process paused (SIGSTOP) while the others write enough for the stream to be
    /// trimmed past it: when it resumes (SIGCONT) it cannot know what it missed, clears, and
    /// never serves the value overwritten while it was paused.
    @Test func aProcessPausedWhileTheStreamIsTrimmedPastItServesNothingStaleWhenItResumes() throws {
        let server = try RedisServer()
        let short = ["MODELSTORE_REDIS_STREAM_LENGTH": "10"]
        let a = try Node(server, environment: short)
        let b = try Node(server, environment: short)
        #expect(a.ask("set k v1") == "ok")
        #expect(b.ask("get k") == "v1")
        #expect(b.ask("await k v1 1000") != "timeout")
        let pid = b.process.process.processIdentifier
        kill(pid, SIGSTOP)
        #expect(a.ask("set k v2") == "ok")
        for index in 0..<400 { #expect(a.ask("set filler\(index) x") == "ok") }
        let length = try #require(try server.command([Array("XLEN".utf8), Array("fleet:s".utf8)]).integer)
        #expect(length < 400, "the stream was not trimmed: \(length) entries")
        kill(pid, SIGCONT)
        let answer = b.ask("await k v2 5000")
        #expect(Int(answer) != nil, "b after it resumed: \(answer)")
        #expect(b.ask("get k") == "v2")
    }
}
