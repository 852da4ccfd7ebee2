import Foundation
import ModelStore

/// One LevelDB setting changed from LevelDB's defaults, to see what it buys.
struct TuningVariant: Sendable {
    var title: String
    var tuning: LevelDBTuning

    /// LevelDB's defaults, then one knob at a time, then ModelStore's defaults with and
    /// without Snappy (and with Snappy and a block cache that holds the whole database) and
    /// with smaller blocks.
    static var all: [TuningVariant] {
        let defaults = LevelDBTuning.levelDBDefaults
        func changing(_ title: String, _ change: (inout LevelDBTuning) -> Void) -> TuningVariant {
            var tuning = defaults
            change(&tuning)
            return TuningVariant(title: title, tuning: tuning)
        }
        func modelStoreChanging(_ title: String, _ change: (inout LevelDBTuning) -> Void) -> TuningVariant {
            var tuning = LevelDBTuning.modelStoreDefaults
            change(&tuning)
            return TuningVariant(title: title, tuning: tuning)
        }
        return [
            TuningVariant(title: "LevelDB defaults", tuning: defaults),
            changing("bloom filter 10 bits/key") { $0.bloomFilterBitsPerKey = 10 },
            changing("block cache 32 MiB") { $0.blockCacheSize = 32 << 20 },
            changing("write buffer 16 MiB") { $0.writeBufferSize = 16 << 20 },
            changing("write buffer 64 MiB") { $0.writeBufferSize = 64 << 20 },
            changing("paranoid checks on") { $0.paranoidChecks = true },
            changing("checksums verified on reads") { $0.verifiesChecksums = true },
            changing("no compression") { $0.usesSnappyCompression = false },
            changing("block size 1 KiB") { $0.blockSize = 1 << 10 },
            TuningVariant(title: "ModelStore defaults", tuning: .modelStoreDefaults),
            TuningVariant(title: "ModelStore defaults, Snappy on", tuning: .snappyCompressed),
            // Compressed blocks, unlike blocks read in place from a mapped table, enter the
            // block cache once verified and decompressed: a cache that holds them all makes a
            // get skip both the checksum and Snappy, at the price of its size in heap.
            modelStoreChanging("ModelStore defaults, Snappy on, 64 MiB block cache") {
                $0.usesSnappyCompression = true
                $0.blockCacheSize = 64 << 20
            },
            modelStoreChanging("ModelStore defaults, 2 KiB blocks") { $0.blockSize = 2 << 10 },
            modelStoreChanging("ModelStore defaults, 1 KiB blocks") { $0.blockSize = 1 << 10 },
        ]
    }
}

/// The engine-level effect of each ``TuningVariant``, measured through the C API with
/// pre-encoded JSON records (so the codec's cost does not drown the engine's) at `records`
/// records: random puts, then, after a compaction, random gets of stored and absent keys.
///
/// Variants run in rounds, in an order rotated each round; the report gives medians.
func runTuningExperiment(records: Int, rounds: Int, directory: String) async throws -> String {
    let corpus = ProfileCorpus(count: records)
    let pool = try (0..<ProfileCorpus.poolSize).map { Array(try JSONModelCodec().encode(corpus.profile($0))) }
    let order = corpus.shuffledNumbers(seed: 0xC0FFEE)
    let variants = TuningVariant.all
    let workloads: [Workload] = [.putRandom, .getExisting, .getAbsent]
    var samples: [Int: [Workload: [Sample]]] = [:]
    var diskBytes: [Int: [Int]] = [:]
    for round in 0..<rounds {
        for offset in 0..<variants.count {
            let index = (offset + round) % variants.count
            let tuning = variants[index].tuning
            let location = directory + "/tuning-\(index)"
            var store = try CLevelDBStore<JSONModelCodec>(path: location, codec: nil, encodedPool: pool, tuning: tuning)
            let put = try await measure(.putRandom, operations: records) {
                for number in order {
                    let number = Int(number)
                    try store.put(corpus.profile(number), forKey: ProfileCorpus.key(number), expired: false)
                }
            }
            try store.close()
            try compactLevelDB(at: location, tuning: tuning)
            diskBytes[index, default: []].append(directoryByteCount(location))
            store = try CLevelDBStore<JSONModelCodec>(path: location, codec: nil, encodedPool: pool, tuning: tuning)
            let lookups = min(records, 100_000)
            var random = SplitMix64(seed: 0xBEEF)
            for _ in 0..<(lookups / 10) {
                _ = try store.get(ProfileCorpus.key(random.index(below: records)))
            }
            let get = try await measure(.getExisting, operations: lookups) {
                for _ in 0..<lookups { _ = try store.get(ProfileCorpus.key(random.index(below: records))) }
            }
            let absent = try await measure(.getAbsent, operations: lookups) {
                for _ in 0..<lookups { _ = try store.get(ProfileCorpus.absentKey(random.index(below: records))) }
            }
            try store.close()
            removeLocation(location)
            for sample in [put, get, absent] {
                samples[index, default: [:]][sample.workload, default: []].append(sample)
            }
            log("tuning, round \(round + 1)/\(rounds), \(variants[index].title): put \(put.microsecondsPerOperation) µs")
        }
    }
    var lines = [
        "### LevelDB tuning, \(formatCount(records)) records, C API with pre-encoded JSON records",
        "",
        "Median of \(rounds) rounds: wall-clock µs per operation / CPU µs per operation, and the ratio of each",
        "to LevelDB's defaults:",
        "",
        "| Settings | " + workloads.map(\.title).joined(separator: " | ") + " | on disk, compacted |",
        "|---|" + String(repeating: "---:|", count: workloads.count + 1),
    ]
    for (index, variant) in variants.enumerated() {
        let cells = workloads.map { workload -> String in
            let mine = samples[index]?[workload] ?? []
            let reference = samples[0]?[workload] ?? []
            guard let wall = median(mine.map(\.microsecondsPerOperation)),
                let cpu = median(mine.map(\.cpuMicrosecondsPerOperation)),
                let referenceWall = median(reference.map(\.microsecondsPerOperation)),
                let referenceCPU = median(reference.map(\.cpuMicrosecondsPerOperation))
            else { return "–" }
            return formatMicroseconds(wall) + " / " + formatMicroseconds(cpu)
                + String(format: " (%.2fx / %.2fx)", wall / referenceWall, cpu / referenceCPU)
        }
        let disk = median((diskBytes[index] ?? []).map(Double.init)).map { String(format: "%.0f MiB", $0 / 1_048_576) } ?? "–"
        lines.append("| \(variant.title) | " + cells.joined(separator: " | ") + " | \(disk) |")
    }
    return lines.joined(separator: "\n")
}
