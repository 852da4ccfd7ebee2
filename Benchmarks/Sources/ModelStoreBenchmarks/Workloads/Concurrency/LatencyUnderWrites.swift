import Foundation
import ModelStore

/// Part (c) of the concurrency workload: random reads' latency while nothing else runs, then
/// while writer threads overwrite random keys at full speed.
struct LatencyResult: Codable {
    var records: Int
    var readers: Int
    var writers: Int
    var idleSeconds: Double
    var writeSeconds: Double
    var writeBufferBytes: Int
    var idleReads: LatencySummary
    var readsUnderWrites: LatencySummary
    var writes: LatencySummary
    /// Latency by percentile, µs: "idle reads", "reads under writes", "writes".
    var curves: [String: [CurvePoint]]
    var timeSeries: [TimeBucket]
    /// The most level-0 files seen (LevelDB slows each write by 1 ms from 8 and stops writes at 12).
    var maximumLevelZeroFiles: Int
    /// `leveldb.stats` after the writes.
    var statsAfterWrites: String
    /// The writers' nice value (0: the readers' priority).
    var writerNice: Int
    /// Share of each phase the reader threads spent runnable but waiting for a CPU (Linux
    /// schedstat run delay over wall time, summed over readers): what the scheduler, not
    /// LevelDB, adds to their latency. Nil where /proc has no schedstat.
    var readerRunDelayIdle: Double?
    var readerRunDelayUnderWrites: Double?
}

/// One 100 ms slice of the experiment.
struct TimeBucket: Codable {
    /// Seconds since the idle phase began (the writes begin at `idleSeconds`).
    var seconds: Double
    var readsPerSecond: Double
    var writesPerSecond: Double
    var maxReadMicroseconds: Double
    var maxWriteMicroseconds: Double
    /// Level-0 files at the end of the slice; nil when not sampled.
    var levelZeroFiles: Int?
}

/// The slice width of ``TimeBucket``, µs.
private let bucketMicroseconds: UInt32 = 100_000

/// Builds a store of `records` records with `importObjects`, compacts it, measures `readers`
/// random-read threads for `idleSeconds`, then the same readers beside `writers` threads that
/// overwrite random keys for `writeSeconds`.
func runLatencyExperiment(
    records: Int, readers: Int, writers: Int, idleSeconds: Double, writeSeconds: Double,
    writeBufferSize: Int?, writerNice: Int, directory: String
) throws -> LatencyResult {
    let corpus = ProfileCorpus(count: records)
    let location = directory + "/latency"
    removeLocation(location)
    let store = try openConcurrencyStore(location, name: "latency", writeBufferSize: writeBufferSize)
    log("  importing \(records) records")
    try importSynchronously(store, corpus: corpus)
    try store.compact()
    let writeBuffer = writeBufferSize ?? ModelStore.Configuration().writeBufferSize

    let origin = monotonicNanoseconds()
    let totalSeconds = idleSeconds + writeSeconds
    // Room for 600,000 reads and 300,000 writes per second per thread: more than either does here.
    let readerLogs = (0..<readers).map { _ in
        (idle: LatencyLog(capacity: Int(idleSeconds * 600_000) + 1), busy: LatencyLog(capacity: Int(writeSeconds * 600_000) + 1))
    }
    let writerLogs = (0..<writers).map { _ in LatencyLog(capacity: Int(writeSeconds * 300_000) + 1) }
    let levelZero = Locked<[(UInt32, Int)]>([])
    let runDelays = Locked<[(idle: UInt64, busy: UInt64)]>([])
    let inWritePhase = StopFlag()
    let stopReaders = StopFlag()
    let stopWriters = StopFlag()
    let finished = DispatchGroup()

    log("  reading for \(idleSeconds) s idle, then \(writeSeconds) s under \(writers) writers")
    // The level-0 sampler: LevelDB's own view of the backlog that makes it slow writes down.
    startThread(finished) {
        while !stopReaders.isSet {
            let files = (try? store.property(named: "leveldb.num-files-at-level0")).flatMap { $0.flatMap { Int($0) } }
            let now = UInt32((monotonicNanoseconds() - origin) / 1_000)
            if let files { levelZero.withLock { $0.append((now, files)) } }
            usleep(20_000)
        }
    }
    for reader in 0..<readers {
        let logs = readerLogs[reader]
        startThread(finished) {
            var random = SplitMix64(seed: 0x4EAD + UInt64(reader))
            let idleStart = threadRunDelay()
            var busyStart: UInt64?
            while !stopReaders.isSet {
                let key = ProfileCorpus.key(random.index(below: records))
                let start = monotonicNanoseconds()
                blackHole(try? store.object(Profile.self, forKey: key))
                let end = monotonicNanoseconds()
                if inWritePhase.isSet {
                    if busyStart == nil { busyStart = threadRunDelay() }
                    _ = logs.busy.record(start: start, end: end, origin: origin)
                } else {
                    _ = logs.idle.record(start: start, end: end, origin: origin)
                }
            }
            if let idleStart, let busyStart, let end = threadRunDelay() {
                runDelays.withLock { $0.append((busyStart - idleStart, end - busyStart)) }
            }
        }
    }
    usleep(useconds_t(idleSeconds * 1e6))
    inWritePhase.set()
    for writer in 0..<writers {
        let log = writerLogs[writer]
        startThread(finished) {
            var random = SplitMix64(seed: 0x9817E + UInt64(writer))
            if writerNice != 0 { setThreadNice(writerNice) }
            while !stopWriters.isSet {
                let number = random.index(below: records)
                let profile = corpus.profile(number)
                let key = ProfileCorpus.key(number)
                let start = monotonicNanoseconds()
                try? store.set(profile, forKey: key)
                let end = monotonicNanoseconds()
                if !log.record(start: start, end: end, origin: origin) { break }
            }
        }
    }
    usleep(useconds_t(writeSeconds * 1e6))
    stopWriters.set()
    stopReaders.set()
    finished.wait()
    let stats = (try? store.statistics()) ?? ""
    try store.close()
    removeLocation(location)

    let idleReads = readerLogs.flatMap { $0.idle.latencyValues }.sorted()
    let busyReads = readerLogs.flatMap { $0.busy.latencyValues }.sorted()
    let writes = writerLogs.flatMap(\.latencyValues).sorted()
    let samples = levelZero.withLock { $0 }
    let delays = runDelays.withLock { $0 }
    return LatencyResult(
        records: records, readers: readers, writers: writers, idleSeconds: idleSeconds, writeSeconds: writeSeconds,
        writeBufferBytes: writeBuffer,
        idleReads: LatencySummary(sorted: idleReads, seconds: idleSeconds),
        readsUnderWrites: LatencySummary(sorted: busyReads, seconds: writeSeconds),
        writes: LatencySummary(sorted: writes, seconds: writeSeconds),
        curves: [
            "idle reads": latencyCurve(idleReads), "reads under writes": latencyCurve(busyReads),
            "writes": latencyCurve(writes),
        ],
        timeSeries: timeSeries(
            readers: readerLogs.flatMap { [$0.idle, $0.busy] }, writers: writerLogs, levelZero: samples,
            seconds: totalSeconds),
        maximumLevelZeroFiles: samples.map(\.1).max() ?? 0,
        statsAfterWrites: stats, writerNice: writerNice,
        readerRunDelayIdle: delays.isEmpty ? nil : Double(delays.map(\.idle).reduce(0, +)) / (idleSeconds * 1e9),
        readerRunDelayUnderWrites: delays.isEmpty ? nil : Double(delays.map(\.busy).reduce(0, +)) / (writeSeconds * 1e9))
}

/// Operations per second and the slowest operation in each 100 ms slice.
private func timeSeries(
    readers: [LatencyLog], writers: [LatencyLog], levelZero: [(UInt32, Int)], seconds: Double
) -> [TimeBucket] {
    let count = Int((seconds * 1e6 / Double(bucketMicroseconds)).rounded(.up)) + 1
    var reads = [Int](repeating: 0, count: count)
    var writes = [Int](repeating: 0, count: count)
    var maxRead = [UInt32](repeating: 0, count: count)
    var maxWrite = [UInt32](repeating: 0, count: count)
    for log in readers {
        log.forEach { end, latency in
            let bucket = min(count - 1, Int(end / bucketMicroseconds))
            reads[bucket] += 1
            maxRead[bucket] = max(maxRead[bucket], latency)
        }
    }
    for log in writers {
        log.forEach { end, latency in
            let bucket = min(count - 1, Int(end / bucketMicroseconds))
            writes[bucket] += 1
            maxWrite[bucket] = max(maxWrite[bucket], latency)
        }
    }
    var files = [Int?](repeating: nil, count: count)
    for (time, value) in levelZero {
        let bucket = min(count - 1, Int(time / bucketMicroseconds))
        files[bucket] = max(files[bucket] ?? 0, value)
    }
    let perSecond = 1e6 / Double(bucketMicroseconds)
    return (0..<count).map { bucket in
        TimeBucket(
            seconds: Double(bucket) * Double(bucketMicroseconds) / 1e6,
            readsPerSecond: Double(reads[bucket]) * perSecond, writesPerSecond: Double(writes[bucket]) * perSecond,
            maxReadMicroseconds: Double(maxRead[bucket]) / 1_000, maxWriteMicroseconds: Double(maxWrite[bucket]) / 1_000,
            levelZeroFiles: files[bucket])
    }
}
