import Foundation

/// Runs every contender in worker processes, round by round, and prints the report.
///
/// Each round runs every contender once, in an order rotated by one each round, so slow
/// drift on a shared machine (another build starting) lands on all contenders alike and the
/// per-round ratios stay paired. Each worker is a fresh process, so one contender's heap,
/// page cache warm-up or peak RSS never leaks into another's.
struct Coordinator {
    let options: RunOptions

    func run() async throws {
        let machine = MachineDescription.current()
        let fileManager = FileManager.default
        try fileManager.createDirectory(atPath: options.workDirectory, withIntermediateDirectories: true)
        defer { try? fileManager.removeItem(atPath: options.workDirectory) }
        log("Working in \(options.workDirectory); allocation counting \(AllocationCounter.isSupported ? "on" : "off")")

        var results: [Int: [WorkerReport]] = [:]
        for records in options.records {
            let contenders = options.contenders.filter { $0.runs(atRecords: records) }
            let runs = options.runs(atRecords: records)
            for round in 0..<runs {
                let shift = round % max(contenders.count, 1)
                for contender in contenders[shift...] + contenders[..<shift] {
                    let report = try runWorker(contender: contender, records: records, round: round, of: runs)
                    results[records, default: []].append(report)
                }
            }
        }

        var memoryChecks: [MemoryCheckResult] = []
        if options.records.contains(where: { $0 >= 1_000_000 }) {
            memoryChecks = try runMemoryChecks(records: 1_000_000)
        }

        let report = Report(
            machine: machine, results: results, memoryChecks: memoryChecks, options: options,
            payloadSizes: try? PayloadSizes.measure())
        let markdown = report.markdown()
        print(markdown)
        if let path = options.markdownPath {
            try markdown.write(toFile: path, atomically: true, encoding: .utf8)
        }
        if let path = options.jsonPath {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            let everything = results.values.flatMap { $0 } + memoryChecks.map(\.report)
            try encoder.encode(everything).write(to: URL(fileURLWithPath: path))
        }
    }

    private func runWorker(contender: Contender, records: Int, round: Int, of runs: Int) throws -> WorkerReport {
        let directory = options.workDirectory + "/\(contender.rawValue)-\(records)"
        let reportPath = directory + ".json"
        let start = ContinuousClock.now
        try spawnSelf([
            "worker", "--contender", contender.rawValue, "--records", "\(records)",
            "--directory", directory, "--report", reportPath,
        ])
        let report = try JSONDecoder().decode(WorkerReport.self, from: Data(contentsOf: URL(fileURLWithPath: reportPath)))
        try? FileManager.default.removeItem(atPath: reportPath)
        try? FileManager.default.removeItem(atPath: directory)
        log("\(records) records, run \(round + 1)/\(runs), \(contender.rawValue): \(ContinuousClock.now - start)")
        return report
    }

    private func runMemoryChecks(records: Int) throws -> [MemoryCheckResult] {
        let directory = options.workDirectory + "/memory-check"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        return try [MemoryCheckPhase.importRecords, .enumerate].map { phase in
            let reportPath = directory + "-\(phase.rawValue).json"
            try spawnSelf([
                "memory-check", "--phase", phase.rawValue, "--records", "\(records)",
                "--directory", directory, "--report", reportPath,
            ])
            let report = try JSONDecoder().decode(WorkerReport.self, from: Data(contentsOf: URL(fileURLWithPath: reportPath)))
            log("memory check, \(phase.rawValue): peak RSS \(report.peakResidentBytes >> 20) MiB")
            return MemoryCheckResult(phase: phase, report: report)
        }
    }

    /// Runs this executable with `arguments` and waits for it; throws if it fails.
    private func spawnSelf(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        process.arguments = arguments
        process.standardOutput = FileHandle.standardError
        try process.run()
        process.waitUntilExit()
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            throw BenchmarkFailure("the worker `\(arguments.joined(separator: " "))` failed")
        }
    }
}

/// Writes a progress line to standard error, keeping standard output for the report.
func log(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}

/// The outcome of one half of the memory check.
struct MemoryCheckResult {
    var phase: MemoryCheckPhase
    var report: WorkerReport
}
