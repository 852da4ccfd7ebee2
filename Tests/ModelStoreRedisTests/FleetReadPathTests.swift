import Foundation
import ModelStore
import ModelStoreTestSupport
import Testing
@testable import ModelStoreRedis

/// How a read reaches Redis (issue 37): hiredis's blocking calls run on the caller's own thread
/// when it is not one of Swift's cooperative pool (no hand-off), and never on the pool: a
/// read-through in a task waits for Redis suspended, leaving the pool's threads to other tasks.
@Suite(.serialized, .enabled(if: RedisServer.isInstalled, "needs redis-server (scripts/install-dependencies)"))
struct FleetReadPathTests {
    /// A caller on a thread of its own makes the call itself; a caller in a task has it made on
    /// a thread that runs no task.
    @Test func aCallRunsOnTheCallersThreadUnlessTheCallerRunsATask() async throws {
        let server = try RedisServer()
        let node = try FleetNode(server)
        let onThread = try runOnThread { () -> (caller: pthread_t, ran: pthread_t?) in
            let caller = pthread_self()
            let ran = try? node.tier.pool.run { _ in pthread_self() }.get()
            return (caller, ran)
        }
        #expect(onThread.ran.map { pthread_equal($0, onThread.caller) != 0 } == true)
        let caller = pthread_self()
        let inTask = try node.tier.pool.run { _ in (pthread_self(), RedisPool.isInTask) }.get()
        #expect(pthread_equal(inTask.0, caller) == 0, "a task's call runs on another thread")
        #expect(inTask.1 == false, "and that thread runs no task")
    }

    /// Read-throughs waiting on a slow Redis (every byte 300 ms late each way) do not hold the
    /// cooperative pool: another task runs at once meanwhile. Before, each read-through's hit
    /// step waited for Redis on a pool thread, and with as many waiting as the pool has threads
    /// nothing else ran until a reply came.
    @Test func readThroughsWaitingOnASlowRedisLeaveTheCooperativePoolFree() async throws {
        let server = try RedisServer()
        let proxy = try FaultProxy(server)
        let node = try FleetNode(port: proxy.port, commandTimeout: .seconds(3))
        // The tier follows the stream and knows the database's generation before the delay.
        _ = try await node.store.object(Profile.self, forKey: "warm-up") { Profile(value: "w") }
        try proxy.delay(milliseconds: 300)
        let readers = ProcessInfo.processInfo.activeProcessorCount * 2
        let store = node.store
        let reads = Task {
            try await withThrowingTaskGroup(of: String.self) { group in
                for reader in 0..<readers {
                    group.addTask {
                        try await store.object(Profile.self, forKey: "slow:\(reader)") { Profile(value: "fetched") }.value
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }
        try await Task.sleep(for: .milliseconds(100))
        // A task that needs a pool thread for a moment, while every reader waits on Redis.
        let clock = ContinuousClock()
        let start = clock.now
        await Task.detached { blackHole(1) }.value
        let waited = clock.now - start
        #expect(waited < .milliseconds(150), "a task waited \(waited) for a pool thread")
        let values = try await reads.value
        #expect(values.count == readers && values.allSatisfy { $0 == "fetched" })
        try proxy.delay(milliseconds: 0)
    }

    /// A record read from Redis on a local miss is stored locally (off the reader's path) even
    /// though the node writes other keys before that store lands: only a change that may name
    /// the key (or no key) drops it. Before, any change of the database dropped it, so on a busy
    /// node each read of the key asked Redis again.
    @Test func aRecordReadFromRedisIsKeptLocallyWhileTheNodeWritesOtherKeys() throws {
        let server = try RedisServer()
        let a = try FleetNode(server)
        let b = try FleetNode(server)
        let keys = (0..<20).map { "k\($0)" }
        for key in keys { try a.store.set(Profile(value: key), forKey: key) }
        #expect(timeUntil { b.caughtUp() } != nil)
        for key in keys {
            #expect(try b.value(key) == key)
            // Before the queued fill of `key` lands (it waits 2 ms for others).
            for other in 0..<3 { try b.store.set(Profile(value: "o"), forKey: "\(key)-other\(other)") }
        }
        // Without reading through the tier again: only what the fills stored.
        var kept = 0
        _ = try timeUntil(within: .seconds(2)) {
            kept = try keys.filter { try b.store.snapshot().object(Profile.self, forKey: $0) != nil }.count
            return kept == keys.count
        }
        // A key sharing its stripe with one of the others loses its fill (about 1 in 170 each).
        #expect(kept >= keys.count - 3, "\(kept) of \(keys.count) records read from Redis were kept locally")
    }

    /// A record written before the node attached (so older than its doubt's horizon) and read
    /// from Redis is, once its queued fill lands, served locally without asking Redis again: the
    /// fill notes it as revalidated as it lands (before, the reader noted it on its own path).
    /// Redis slowed to 300 ms a byte shows a revalidation.
    @Test func aRecordReadFromRedisIsNotRevalidatedOnceItsFillLands() throws {
        let server = try RedisServer()
        let proxy = try FaultProxy(server)
        let a = try FleetNode(server)
        let keys = (0..<5).map { "k\($0)" }
        for key in keys { try a.store.set(Profile(value: key), forKey: key) }
        let b = try FleetNode(port: proxy.port, commandTimeout: .seconds(3))
        let database = try #require(b.tier.registry.attachments(named: "users").first?.database)
        let horizon = try #require(database.doubtedUntil)
        for key in keys {
            #expect(try b.value(key) == key)
        }
        #expect(try timeUntil(within: .seconds(2)) {
            try keys.allSatisfy { try b.store.snapshot().object(Profile.self, forKey: $0) != nil }
        } != nil)
        // Older than the horizon: doubted, unless noted as revalidated.
        let snapshot = try b.store.snapshot()
        for key in keys {
            let entry = try #require(try snapshot.entry(Profile.self, forKey: key))
            #expect(entry.storedAt <= horizon)
        }
        try proxy.delay(milliseconds: 300)
        let clock = ContinuousClock()
        let start = clock.now
        for key in keys { #expect(try b.value(key) == key) }
        let took = clock.now - start
        try proxy.delay(milliseconds: 0)
        #expect(took < .milliseconds(250), "re-reading \(keys.count) records stored from Redis took \(took)")
    }
}

/// Runs `body` on a thread of its own (not Swift's cooperative pool) and returns what it returned.
private func runOnThread<Value>(_ body: @escaping () throws -> Value) throws -> Value {
    let box = ThreadResult(body)
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
        box.result = Result { try box.body() }
        done.signal()
    }
    thread.start()
    done.wait()
    return try box.result!.get()
}

/// A body and its result, handed to a thread and back (the semaphore orders the accesses).
private final class ThreadResult<Value>: @unchecked Sendable {
    let body: () throws -> Value
    var result: Result<Value, any Error>?
    init(_ body: @escaping () throws -> Value) { self.body = body }
}

@inline(never)
private func blackHole(_ value: Int) {
    _ = value
}
