import Foundation
import ModelStore
import ModelStoreRedis

/// What the invalidation-latency measurement writes and reads: a small model.
struct FleetMarker: Codable, Sendable {
    var value: String
}

/// Invalidation latency across processes: this process writes a key through its node; another
/// process (this executable, `fleet-watch`), which holds the key's previous value, polls its own
/// node until it reads the new one and answers the moment (CLOCK_MONOTONIC, one clock for both
/// processes). From the start of the writer's `set` to that moment.
func fleetInvalidationLatency(directory: String, port: Int, writes: Int = 300) throws -> [String] {
    let prefix = "bench-latency:"
    let watcher = try FleetWatcherProcess(port: port, directory: directory + "/latency-watcher", prefix: prefix)
    defer { watcher.stop() }
    let tier = try RedisTier(host: "127.0.0.1", port: port, keyPrefix: prefix)
    defer { tier.shutdown() }
    let writer = try fleetStore("latency", directory + "/latency-writer", tier: tier)
    defer { try? writer.close() }
    let latencies = try onThread { () throws -> [Double] in
        var latencies: [Double] = []
        for index in 0..<writes {
            let key = "k\(index % 20)"
            let value = "v\(index)"
            try watcher.send("watch \(key) \(value)", expecting: "watching")
            let start = monotonicNanoseconds()
            try writer.set(FleetMarker(value: value), forKey: key)
            let answer = try watcher.readLine()
            guard answer.hasPrefix("seen "), let seen = UInt64(answer.dropFirst(5)) else {
                throw BenchmarkFailure("the watcher answered \(answer)")
            }
            latencies.append(Double(seen &- start) / 1_000_000)
        }
        return latencies.sorted()
    }
    func at(_ fraction: Double) -> Double { latencies[min(latencies.count - 1, Int(Double(latencies.count) * fraction))] }
    return [
        "### Invalidation latency across processes (\(writes) overwrites of 20 keys)",
        "",
        "From the start of a write on one node until another process's node reads the new value",
        "(it polls every 20 µs; it held the previous value locally).",
        "",
        "| p50 | p90 | p99 | slowest |",
        "|---:|---:|---:|---:|",
        String(format: "| %.2f ms | %.2f ms | %.2f ms | %.2f ms |", at(0.5), at(0.9), at(0.99), latencies.last ?? 0),
    ]
}

/// `modelstore-bench fleet-watch`: a node in a process of its own, driven line by line on
/// standard input: `watch KEY VALUE` reads KEY (so it holds what is there), answers `watching`,
/// then polls until KEY reads VALUE and answers `seen <CLOCK_MONOTONIC ns>` (or `timeout` after 10 s).
func runFleetWatcher(port: Int, directory: String, prefix: String) throws {
    let tier = try RedisTier(host: "127.0.0.1", port: port, keyPrefix: prefix)
    let store = try fleetStore("latency", directory, tier: tier)
    func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
    say("ready")
    try onThread {
        while let line = Swift.readLine() {
            let words = line.split(separator: " ").map(String.init)
            guard words.count == 3, words[0] == "watch" else { break }
            _ = try store.object(FleetMarker.self, forKey: words[1])
            say("watching")
            let deadline = monotonicNanoseconds() + 10_000_000_000
            var answer = "timeout"
            while monotonicNanoseconds() < deadline {
                if try store.object(FleetMarker.self, forKey: words[1])?.value == words[2] {
                    answer = "seen \(monotonicNanoseconds())"
                    break
                }
                usleep(20)
            }
            say(answer)
        }
    }
    try store.close()
    tier.shutdown()
}

/// The `fleet-watch` child process and its two pipes.
final class FleetWatcherProcess: @unchecked Sendable {
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private var buffer: [UInt8] = []

    init(port: Int, directory: String, prefix: String) throws {
        let executable = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
        process.executableURL = executable
        process.arguments = ["fleet-watch", "--port", String(port), "--workdir", directory, "--prefix", prefix]
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        let first = try readLine()
        guard first == "ready" else { throw BenchmarkFailure("the watcher said \(first)") }
    }

    func send(_ line: String, expecting answer: String) throws {
        input.fileHandleForWriting.write(Data((line + "\n").utf8))
        let got = try readLine()
        guard got == answer else { throw BenchmarkFailure("the watcher answered \(got), not \(answer)") }
    }

    func readLine() throws -> String {
        while true {
            if let end = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<end], as: UTF8.self)
                buffer.removeFirst(end + 1)
                return line
            }
            let data = output.fileHandleForReading.availableData
            guard !data.isEmpty else { throw BenchmarkFailure("the watcher process ended") }
            buffer += data
        }
    }

    func stop() {
        try? input.fileHandleForWriting.close()
        for _ in 0..<200 where process.isRunning { usleep(10_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }
}
