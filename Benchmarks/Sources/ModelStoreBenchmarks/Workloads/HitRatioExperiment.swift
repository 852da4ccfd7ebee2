import Foundation
@_spi(Benchmark) import ModelStore

/// `modelstore-bench hit-ratio`: replays request traces (scripts/hit-ratio/make-traces.py)
/// through a real store, a get per request and on a miss a set of a record of the request's
/// size, with `maximumTotalBytes` at 1 % and 10 % of the trace's footprint (the bytes of its
/// distinct keys), under each eviction policy; prints the object and byte miss ratios and
/// writes one JSON line per run for scripts/hit-ratio/libcachesim-compare.py.
///
/// A record's size as ModelStore counts it (key plus stored value) is the request's size: the
/// model is a string padded to it. Eviction runs inline (`evictsInline`), so the database is
/// within its budget after every request, as a simulated cache is.
func runHitRatioExperiment(traces: String, directory: String, json: String?, only: String?) throws -> String {
    let files = try FileManager.default.contentsOfDirectory(atPath: traces).filter { $0.hasSuffix(".csv") }.sorted()
        .filter { only == nil || $0.hasPrefix(only!) }
    var lines: [String] = []
    var report = "trace              budget  policy              object miss  byte miss  seconds\n"
    for file in files {
        let name = String(file.dropLast(4))
        let requests = try loadTrace(traces + "/" + file)
        var sizes: [Int: Int] = [:]
        for request in requests { sizes[request.id] = request.size }
        let footprint = sizes.values.reduce(0, +)
        for budget in [0.01, 0.10] {
            for eviction in [ModelStore.Eviction.leastRecentlyUsed, .oldestWritten] {
                let started = Date()
                let result = try replay(
                    requests, budget: Int(Double(footprint) * budget), eviction: eviction,
                    directory: directory + "/\(name)-\(budget)-\(eviction)")
                let seconds = Date().timeIntervalSince(started)
                report += "\(name.padding(toLength: 18, withPad: " ", startingAt: 0)) "
                    + "\(String(format: "%5.0f%%", budget * 100))  \(eviction.description.padding(toLength: 18, withPad: " ", startingAt: 0))  "
                    + String(format: "%10.2f%%  %8.2f%%  %7.1f\n", result.objectMiss * 100, result.byteMiss * 100, seconds)
                lines.append(
                    "{\"trace\":\"\(name)\",\"budget\":\(budget),\"policy\":\"\(eviction)\","
                        + "\"objectMissRatio\":\(result.objectMiss),\"byteMissRatio\":\(result.byteMiss),"
                        + "\"requests\":\(requests.count),\"footprint\":\(footprint),\"seconds\":\(seconds)}")
            }
        }
    }
    if let json { try (lines.joined(separator: "\n") + "\n").write(toFile: json, atomically: true, encoding: .utf8) }
    return report
}

private struct TraceRequest {
    var id: Int
    var size: Int
}

private func loadTrace(_ path: String) throws -> [TraceRequest] {
    let text = try String(contentsOfFile: path, encoding: .utf8)
    var requests: [TraceRequest] = []
    requests.reserveCapacity(text.utf8.count / 10)
    for line in text.split(separator: "\n") {
        let parts = line.split(separator: ",")
        guard parts.count == 2, let id = Int(parts[0]), let size = Int(parts[1]) else { continue }
        requests.append(TraceRequest(id: id, size: size))
    }
    return requests
}

private func replay(
    _ requests: [TraceRequest], budget: Int, eviction: ModelStore.Eviction, directory: String
) throws -> (objectMiss: Double, byteMiss: Double) {
    try? FileManager.default.removeItem(atPath: directory)
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    var configuration = ModelStore.Configuration()
    configuration.directory = URL(fileURLWithPath: directory)
    configuration.codec = BinaryModelCodec()
    configuration.maximumTotalBytes = budget
    configuration.eviction = eviction
    configuration.evictsInline = true
    let store = try ModelStore(name: "trace", policy: .never, configuration: configuration)
    defer { try? store.close() }
    // What a record costs beyond its model's characters: the envelope and the codec's framing.
    try store.set(String(repeating: "x", count: 100), forKey: "probe")
    let overhead = try store.entry(String.self, forKey: "probe")!.byteCount - 100
    try store.removeObject(forKey: "probe")
    let padding = String(repeating: "x", count: 40 << 10)
    var misses = 0
    var missedBytes = 0
    var totalBytes = 0
    for request in requests {
        let key = "k\(request.id)"
        totalBytes += request.size
        if try store.object(String.self, forKey: key) == nil {
            misses += 1
            missedBytes += request.size
            let length = max(0, request.size - key.utf8.count - overhead)
            try store.set(String(padding.prefix(length)), forKey: key)
        }
    }
    return (Double(misses) / Double(requests.count), Double(missedBytes) / Double(totalBytes))
}
