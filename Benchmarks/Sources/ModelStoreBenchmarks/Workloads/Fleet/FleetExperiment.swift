import Foundation
import ModelStore
import ModelStoreRedis
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The shared tier (issues 25 and 37), against a `redis-server` the experiment starts on a free
/// loopback port (`--save '' --appendonly no`, killed at the end), every part in one run:
///
/// 1. A Redis hit and a Redis miss through the tier against a raw hiredis `GET` of the same
///    record key, and `GET` with `PTTL` pipelined (FleetRedisCalls.swift).
/// 2. A local hit (LevelDB, and the object cache) with a `RedisTier` configured against the same
///    hit without one: the target is within 5 %. A hit never reaches the tier, so only noise
///    should separate them. Rounds alternate the two stores; each cell is the median.
/// 3. Invalidation latency across processes (FleetInvalidationLatency.swift).
/// 4. What a tag removal leaves reachable in Redis (FleetTagsAndRestart.swift).
/// 5. Three nodes (each its own directory, store and tier; in this process, each driven by four
///    tasks) on a read-mostly workload: 2,000 keys, 95 % read-through reads whose fetch takes
///    1 ms, 5 % overwrites (and, to show what the overwrites cost, none). Throughput per node and
///    upstream fetches per 1,000 requests, with and without the shared tier.
/// 6. Upstream fetches after Redis restarted empty under three nodes that hold the records
///    (last: it restarts the server).
func runFleetExperiment(rounds: Int, directory: String) async throws -> String {
    // Before the server starts, so it runs under the hold as well.
    let hold = CPULatencyHold()
    defer { hold.release() }
    let redis = try BenchmarkRedis()
    defer { redis.stop() }
    let load = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)
    var lines: [String] = [
        "Load average at the start: " + (load?.split(separator: " ").prefix(3).joined(separator: ", ") ?? "unknown"), "",
        hold.summary, "",
    ]
    // MODELSTORE_FLEET_ONLY=calls,hits,latency,tags,throughput,restart runs only those parts.
    let only = ProcessInfo.processInfo.environment["MODELSTORE_FLEET_ONLY"].map { Set($0.split(separator: ",").map(String.init)) }
    func runs(_ part: String) -> Bool { only?.contains(part) ?? true }
    if runs("calls") { lines += try fleetRedisCalls(rounds: rounds, directory: directory, port: redis.port) + [""] }
    if runs("hits") { lines += try localHitCost(rounds: rounds, directory: directory, port: redis.port) + [""] }
    if runs("latency") { lines += try fleetInvalidationLatency(directory: directory, port: redis.port) + [""] }
    if runs("tags") { lines += try fleetTagRemoval(directory: directory, port: redis.port) + [""] }
    if runs("throughput") { lines += try await fleetThroughput(directory: directory, port: redis.port) + [""] }
    if runs("restart") { lines += try await fleetRestart(directory: directory, redis: redis) }
    let end = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)
    lines += ["", "Load average at the end: " + (end?.split(separator: " ").prefix(3).joined(separator: ", ") ?? "unknown")]
    return lines.joined(separator: "\n")
}

private func tier(_ port: Int, _ prefix: String) throws -> RedisTier {
    try RedisTier(host: "127.0.0.1", port: port, keyPrefix: prefix)
}

private func localHitCost(rounds: Int, directory: String, port: Int) throws -> [String] {
    let corpus = ProfileCorpus(count: 1_000)
    let keys = corpus.shuffledNumbers(seed: 0xF1EE7).map { ProfileCorpus.key(Int($0)) }
    var lines = [
        "### Local hit with and without a shared tier, ns per read (1,000 live records, JSON codec)",
        "",
        "Median of \(rounds) rounds, the two stores alternating which goes first. Target: within 5 %.",
        "",
        "| Object cache | without a tier | with a RedisTier | Difference |",
        "|---|---:|---:|---:|",
    ]
    for cacheLimit in [0, 1_000] {
        var stores: [ModelStore] = []
        for withTier in [false, true] {
            var configuration = ModelStore.Configuration()
            configuration.directory = URL(fileURLWithPath: directory + "/hit-\(withTier)", isDirectory: true)
            configuration.objectCacheLimit = cacheLimit
            if withTier { configuration.sharedTier = try tier(port, "bench-hit-\(cacheLimit):") }
            let store = try ModelStore(name: "hits", policy: .never, configuration: configuration)
            for number in 0..<corpus.count { try store.set(corpus.profile(number), forKey: ProfileCorpus.key(number)) }
            stores.append(store)
        }
        var without: [Double] = []
        var with: [Double] = []
        for round in 0..<rounds {
            // Which store goes first alternates, so drift and warm-up affect both alike.
            for withTier in round % 2 == 0 ? [false, true] : [true, false] {
                let ns = try nanosecondsPerRead(keys, forAtLeast: .milliseconds(50)) { try stores[withTier ? 1 : 0].object(Profile.self, forKey: $0) }
                if withTier { with.append(ns) } else { without.append(ns) }
            }
        }
        let a = median(without) ?? 0
        let b = median(with) ?? 0
        lines.append(
            "| \(cacheLimit == 0 ? "off" : "1,000") | " + String(format: "%.0f | %.0f | %+.1f %% |", a, b, (b / a - 1) * 100))
        for store in stores { try store.close() }
    }
    return lines
}

private func fleetThroughput(directory: String, port: Int) async throws -> [String] {
    let keyCount = 2_000
    let requestsPerNode = 20_000
    var lines = [
        "### Three nodes, read-mostly (\(keyCount) keys, 95 % read-through reads with a 1 ms fetch, 5 % overwrites)",
        "",
        "Each node: its own directory, store and tier, \(requestsPerNode) requests from 4 tasks; one process.",
        "",
        "| Shared tier | Requests/s per node (each node) | Upstream fetches per 1,000 requests | µs per write | µs per read |",
        "|---|---|---:|---:|---:|",
    ]
    let corpus = ProfileCorpus(count: keyCount)
    for (withTier, overwrites) in [(false, 5), (true, 5), (false, 0), (true, 0)] {
        let fetches = FetchCount()
        var opened: [ModelStore] = []
        for node in 0..<3 {
            var configuration = ModelStore.Configuration()
            configuration.directory = URL(fileURLWithPath: directory + "/fleet-\(withTier)-\(overwrites)-\(node)", isDirectory: true)
            configuration.objectCacheLimit = 1_000
            if withTier { configuration.sharedTier = try tier(port, "bench-fleet-\(overwrites):") }
            opened.append(try ModelStore(name: "fleet", policy: .never, configuration: configuration))
        }
        let stores = opened
        let rates = try await withThrowingTaskGroup(of: Double.self) { group in
            for (node, store) in stores.enumerated() {
                group.addTask {
                    let clock = ContinuousClock()
                    let start = clock.now
                    try await withThrowingTaskGroup(of: Void.self) { tasks in
                        for task in 0..<4 {
                            tasks.addTask {
                                var random = SplitMix64(seed: UInt64(node * 16 + task + 1))
                                for _ in 0..<(requestsPerNode / 4) {
                                    let number = random.index(below: keyCount)
                                    let key = ProfileCorpus.key(number)
                                    let began = monotonicNanoseconds()
                                    if random.index(below: 100) < overwrites {
                                        try store.set(corpus.profile(number), forKey: key)
                                        fetches.writeNanoseconds.add(Int(monotonicNanoseconds() - began), ordering: .relaxed)
                                        fetches.writes.add(1, ordering: .relaxed)
                                    } else {
                                        _ = try await store.object(Profile.self, forKey: key) {
                                            fetches.value.add(1, ordering: .relaxed)
                                            try await Task.sleep(for: .milliseconds(1))
                                            return corpus.profile(number)
                                        }
                                        fetches.readNanoseconds.add(Int(monotonicNanoseconds() - began), ordering: .relaxed)
                                    }
                                }
                            }
                        }
                        try await tasks.waitForAll()
                    }
                    let elapsed = clock.now - start
                    let (seconds, attoseconds) = elapsed.components
                    return Double(requestsPerNode) / (Double(seconds) + Double(attoseconds) / 1e18)
                }
            }
            var rates: [Double] = []
            for try await rate in group { rates.append(rate) }
            return rates.sorted()
        }
        let perThousand = Double(fetches.value.load(ordering: .relaxed)) * 1_000 / Double(3 * requestsPerNode)
        lines.append(
            "| \(withTier ? "RedisTier" : "none")\(overwrites == 5 ? "" : ", no overwrites") | "
                + rates.map { String(format: "%.0f", $0) }.joined(separator: ", ")
                + String(format: " | %.1f | %.0f | %.0f |", perThousand,
                    Double(fetches.writeNanoseconds.load(ordering: .relaxed)) / 1000 / Double(max(1, fetches.writes.load(ordering: .relaxed))),
                    Double(fetches.readNanoseconds.load(ordering: .relaxed)) / 1000
                        / Double(3 * requestsPerNode - fetches.writes.load(ordering: .relaxed))))
        for store in stores { try store.close() }
    }
    return lines
}

/// Upstream fetches, counted from every node's tasks.
final class FetchCount: Sendable {
    let value = Atomic<Int>(0)
    /// Time spent in writes and in reads (each task's own), and the writes' count.
    let writeNanoseconds = Atomic<Int>(0)
    let readNanoseconds = Atomic<Int>(0)
    let writes = Atomic<Int>(0)
}

/// A `redis-server` on a free loopback port, nothing saved to disk.
final class BenchmarkRedis {
    let port: Int
    private var process = Process()

    init() throws {
        port = try Self.freePort()
        guard let path: String = ["/usr/bin/redis-server", "/usr/local/bin/redis-server", "/opt/homebrew/bin/redis-server"]
            .first(where: { FileManager.default.isExecutableFile(atPath: $0) })
        else { throw BenchmarkFailure("the fleet benchmark needs redis-server (scripts/install-dependencies)") }
        executable = path
        try start()
    }

    private var executable = ""

    private func start() throws {
        process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        usleep(300_000)
    }

    /// Kills the server and starts it again, empty, on the same port.
    func restart() throws {
        stop()
        try start()
    }

    /// SIGKILLs the server (nothing in it is kept) and waits, bounded, for it to go: Foundation's
    /// `waitUntilExit()` was seen to hang here when called from a task.
    func stop() {
        kill(process.processIdentifier, SIGKILL)
        for _ in 0..<200 where process.isRunning { usleep(10_000) }
    }

    private static func freePort() throws -> Int {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw BenchmarkFailure("socket failed") }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) }
        }
        guard bound == 0 else { throw BenchmarkFailure("bind failed") }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
