import Foundation

/// The `modelstore-bench` executable: the coordinator by default, or one worker when the
/// coordinator spawns it (see ``Command``).
@main
enum BenchmarkMain {
    static func main() async {
        do {
            let command = try Command.parse(
                Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment)
            switch command {
            case .help:
                print(Command.usage)
            case .coordinate(let options):
                try await Coordinator(options: options).run()
            case .worker(let contender, let records, let directory, let reportPath):
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                let sampler = AnonymousMemorySampler()
                let samples = try await runWorkloads(of: contender, records: records, directory: directory)
                let disk = (try? String(contentsOfFile: directory + "/" + diskBytesFileName, encoding: .utf8))
                    .flatMap { Int($0) }
                try write(
                    WorkerReport(
                        contender: contender, records: records, samples: samples,
                        peakResidentBytes: peakResidentBytes(), peakAnonymousBytes: sampler.stop(), diskBytes: disk),
                    to: reportPath)
            case .tuning(let records, let rounds, let directory):
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                defer { try? FileManager.default.removeItem(atPath: directory) }
                print(try await runTuningExperiment(records: records, rounds: rounds, directory: directory))
            case .checksum(let rounds):
                print(runChecksumExperiment(rounds: rounds))
            case .evictionScale(let records, let directory):
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                defer { try? FileManager.default.removeItem(atPath: directory) }
                print(try runEvictionScaleExperiment(records: records, directory: directory))
            case .hitRatio(let traces, let directory, let json, let only):
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                print(try runHitRatioExperiment(traces: traces, directory: directory, json: json, only: only))
            case .readThrough(let rounds, let directory):
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                defer { try? FileManager.default.removeItem(atPath: directory) }
                print(try await runReadThroughExperiment(rounds: rounds, directory: directory))
            case .fleet(let rounds, let directory):
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                defer { try? FileManager.default.removeItem(atPath: directory) }
                print(try await runFleetExperiment(rounds: rounds, directory: directory))
            case .fleetWatch(let port, let directory, let prefix):
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                try runFleetWatcher(port: port, directory: directory, prefix: prefix)
            case .collections(let records, let rounds, let directory):
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                defer { try? FileManager.default.removeItem(atPath: directory) }
                print(try runCollectionExperiment(records: records, rounds: rounds, directory: directory))
            case .metadata(let records, let rounds, let directory):
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                defer { try? FileManager.default.removeItem(atPath: directory) }
                print(try runMetadataExperiment(records: records, rounds: rounds, directory: directory))
            case .core(let records, let rounds, let directory):
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                defer { try? FileManager.default.removeItem(atPath: directory) }
                print(try await runCoreExperiment(records: records, rounds: rounds, directory: directory))
            case .backup(let records, let rounds, let directory):
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                defer { try? FileManager.default.removeItem(atPath: directory) }
                print(try runBackupExperiment(records: records, rounds: rounds, directory: directory))
            case .encryption(let records, let rounds, let directory):
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                defer { try? FileManager.default.removeItem(atPath: directory) }
                print(try await runEncryptionExperiment(records: records, rounds: rounds, directory: directory))
            case .indexes(let records, let rounds, let directory):
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                defer { try? FileManager.default.removeItem(atPath: directory) }
                print(try runIndexExperiment(records: records, rounds: rounds, directory: directory))
            case .indexPuts(let records, let rounds, let directory):
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                defer { try? FileManager.default.removeItem(atPath: directory) }
                print(try runIndexPutExperiment(records: records, rounds: rounds, directory: directory))
            case .concurrency(let options):
                try FileManager.default.createDirectory(atPath: options.directory, withIntermediateDirectories: true)
                defer { try? FileManager.default.removeItem(atPath: options.directory) }
                print(try runConcurrencyExperiment(options))
            case .memoryCheck(let phase, let records, let directory, let reportPath):
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                let sampler = AnonymousMemorySampler()
                let sample = try await runMemoryCheck(phase, records: records, directory: directory)
                try write(
                    WorkerReport(
                        contender: .modelStoreJSON, records: records, samples: [sample],
                        peakResidentBytes: peakResidentBytes(), peakAnonymousBytes: sampler.stop()),
                    to: reportPath)
            }
        } catch {
            log("modelstore-bench: \(error)")
            exit(1)
        }
    }

    private static func write(_ report: WorkerReport, to path: String) throws {
        try JSONEncoder().encode(report).write(to: URL(fileURLWithPath: path))
    }
}
