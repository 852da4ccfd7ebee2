import Foundation
@_spi(Benchmark) import ModelStore

/// `modelstore-bench eviction-scale --records N`: the cost of limits at scale. Imports N small
/// records, then opens the database with `maximumRecordCount` at 99 % of N and sweeps: the
/// sweep's one pass over the headers plus the eviction of 1 %, its time and the peak anonymous
/// memory it adds (the heap: LevelDB's mapped tables are file pages, not counted). Then the
/// cost of a read hit (LevelDB, no object cache) with limits and without, alternately.
func runEvictionScaleExperiment(records: Int, directory: String) throws -> String {
    var report = ""
    var configuration = ModelStore.Configuration()
    configuration.directory = URL(fileURLWithPath: directory)
    configuration.codec = BinaryModelCodec()
    let started = Date()
    do {
        let store = try ModelStore(name: "scale", policy: .never, configuration: configuration)
        for start in stride(from: 0, to: records, by: 10_000) {
            try store.write { batch in
                for index in start..<min(records, start + 10_000) {
                    try batch.set(index, forKey: String(format: "k%09d", index))
                }
            }
        }
        try store.close()
    }
    report += String(format: "imported %d records in %.1f s\n", records, Date().timeIntervalSince(started))
    var limited = configuration
    limited.maximumRecordCount = records - records / 100
    limited.evictsInline = true  // the open measures the database before it returns
    let baseline = AnonymousMemorySampler(intervalMilliseconds: 5)
    usleep(50_000)
    let before = baseline.stop() ?? 0
    do {
        let store = try ModelStore(name: "scale", policy: .never, configuration: limited)
        let sampler = AnonymousMemorySampler(intervalMilliseconds: 5)
        let sweepStarted = Date()
        let removed = try store.removeExpiredObjects()
        let seconds = Date().timeIntervalSince(sweepStarted)
        let peak = sampler.stop() ?? 0
        let status = try store.limitStatus()
        report += String(
            format: "sweep with a 99 %% count limit: %d evicted in %.2f s (%d records left); anonymous memory %.1f MiB before the open, peak %.1f MiB during the sweep (+%.1f MiB, the sketch included)\n",
            removed, seconds, status.recordCount, Double(before) / 1_048_576, Double(peak) / 1_048_576,
            Double(peak - before) / 1_048_576)
        try store.close()
    }
    // Read hits, with and without limits, alternately.
    let keys = (0..<100_000).map { _ in String(format: "k%09d", Int.random(in: 0..<(records - records / 100))) }
    var times: [String: [Double]] = ["limits": [], "none": []]
    for round in 0..<6 {
        let withLimits = round % 2 == 0
        let store = try ModelStore(name: "scale", policy: .never, configuration: withLimits ? limited : configuration)
        let begin = DispatchTime.now().uptimeNanoseconds
        var found = 0
        for key in keys where try store.object(Int.self, forKey: key) != nil { found += 1 }
        let nanoseconds = Double(DispatchTime.now().uptimeNanoseconds - begin) / Double(keys.count)
        times[withLimits ? "limits" : "none", default: []].append(nanoseconds)
        try store.close()
        _ = found
    }
    func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
    report += String(
        format: "read hit (LevelDB): %.0f ns with limits, %.0f ns without (median of 3 alternating rounds of 100,000)\n",
        median(times["limits"]!), median(times["none"]!))
    return report
}
