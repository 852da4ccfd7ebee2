import Foundation

/// The command line, parsed.
///
///     modelstore-bench [--full] [--records 100000,1000000] [--runs N]
///                      [--contenders c-json,modelstore-json] [--workdir PATH] [--markdown PATH]
///                      [--json PATH]
///
/// `--full` (or `MODELSTORE_BENCH_FULL=1`) adds the 1,000,000-record runs and the memory
/// checks.
///
///     modelstore-bench tuning [--records 1000000] [--runs 3] [--workdir PATH]
///
/// measures LevelDB settings one at a time (see ``runTuningExperiment(records:rounds:directory:)``).
///
///     modelstore-bench checksum [--runs 5]
///
/// times the record checksum's implementations in memory (see ``runChecksumExperiment(rounds:)``).
///
///     modelstore-bench readthrough [--runs 5] [--workdir PATH]
///
/// compares a hit through the read-through call with a plain read, with metrics off and on
/// (see ``runReadThroughExperiment(rounds:directory:)``).
///     modelstore-bench collections [--records 5000] [--runs 15] [--workdir PATH]
///
/// compares puts and gets through a collection with the same through the store (see
/// ``runCollectionExperiment(records:rounds:directory:)``).
///
///     modelstore-bench metadata [--records 20000] [--runs 5] [--workdir PATH]
///
/// times records with and without metadata (see ``runMetadataExperiment(records:rounds:directory:)``).
///     modelstore-bench backup [--records 1000000] [--runs 3] [--workdir PATH]
/// measures backup and restore throughput (see ``runBackupExperiment(records:rounds:directory:)``).
///
///     modelstore-bench encryption [--records 20000] [--runs 5] [--workdir PATH]
///
/// times puts, gets, imports and scans of an encrypting store against a plain one (see
/// ``runEncryptionExperiment(records:rounds:directory:)``).
///
///     modelstore-bench concurrency [--records 1000000] [--runs 3] [--readers 1] [--writers 2]
///                                  [--idle-seconds 3] [--seconds 10] [--write-buffer MiB]
///                                  [--writer-nice N] [--only scaling|latency|hits] [--workdir PATH]
///                                  [--json PATH]
///
/// measures reads and puts from 1 and 2 threads and read latency while writers run (see
/// ``runConcurrencyExperiment(_:)``).
///
/// Two internal forms run one measurement in a child process:
///
///     modelstore-bench worker --contender ID --records N --directory PATH --report PATH
///     modelstore-bench memory-check --phase import|enumerate --records N --directory PATH --report PATH
enum Command {
    case coordinate(RunOptions)
    case worker(contender: Contender, records: Int, directory: String, report: String)
    case memoryCheck(phase: MemoryCheckPhase, records: Int, directory: String, report: String)
    case tuning(records: Int, rounds: Int, directory: String)
    case checksum(rounds: Int)
    case readThrough(rounds: Int, directory: String)
    case fleet(rounds: Int, directory: String)
    /// The fleet experiment's other process (FleetInvalidationLatency.swift).
    case fleetWatch(port: Int, directory: String, prefix: String)
    case collections(records: Int, rounds: Int, directory: String)
    case metadata(records: Int, rounds: Int, directory: String)
    case core(records: Int, rounds: Int, directory: String)
    case backup(records: Int, rounds: Int, directory: String)
    case encryption(records: Int, rounds: Int, directory: String)
    case indexes(records: Int, rounds: Int, directory: String)
    case indexPuts(records: Int, rounds: Int, directory: String)
    case concurrency(ConcurrencyOptions)
    case hitRatio(traces: String, directory: String, json: String?, only: String?)
    case evictionScale(records: Int, directory: String)
    case help

    static let usage = """
        usage: modelstore-bench [--full] [--records N[,N...]] [--runs N] [--contenders ID[,ID...]]
                                [--workdir PATH] [--markdown PATH] [--json PATH]
               modelstore-bench tuning [--records N] [--runs N] [--workdir PATH]
               modelstore-bench checksum [--runs N]
               modelstore-bench hit-ratio --traces DIR [--json PATH] [--only TRACE-PREFIX] [--workdir PATH]
               modelstore-bench eviction-scale [--records N] [--workdir PATH]
               modelstore-bench readthrough [--runs N] [--workdir PATH]
               modelstore-bench fleet [--runs N] [--workdir PATH]     (needs redis-server)
               modelstore-bench collections [--records N] [--runs N] [--workdir PATH]
               modelstore-bench metadata [--records N] [--runs N] [--workdir PATH]
               modelstore-bench core [--records N] [--runs N] [--workdir PATH]
               modelstore-bench backup [--records N] [--runs N] [--workdir PATH]
               modelstore-bench encryption [--records N] [--runs N] [--workdir PATH]
               modelstore-bench indexes [--records N] [--runs N] [--workdir PATH]
               modelstore-bench index-puts [--records N] [--runs N] [--workdir PATH]
               modelstore-bench concurrency [--records N] [--runs N] [--readers N] [--writers N]
                                            [--idle-seconds S] [--seconds S] [--write-buffer MiB]
                                            [--writer-nice N] [--only scaling|latency|hits] [--workdir PATH]
                                            [--json PATH]
        contenders: \(Contender.allCases.map(\.rawValue).joined(separator: ", "))
        """

    /// Parses `arguments` (without the program name).
    static func parse(_ arguments: [String], environment: [String: String]) throws -> Command {
        var values: [String: String] = [:]
        var flags: Set<String> = []
        var rest = arguments[...]
        let mode = rest.first.flatMap { $0.hasPrefix("--") ? nil : $0 }
        if mode != nil { rest = rest.dropFirst() }
        while let argument = rest.popFirst() {
            guard argument.hasPrefix("--") else { throw BenchmarkFailure("unexpected argument \(argument)\n\(usage)") }
            let name = String(argument.dropFirst(2))
            if ["full", "help"].contains(name) {
                flags.insert(name)
            } else {
                guard let value = rest.popFirst() else { throw BenchmarkFailure("\(argument) needs a value\n\(usage)") }
                values[name] = value
            }
        }
        func required(_ name: String) throws -> String {
            guard let value = values[name] else { throw BenchmarkFailure("--\(name) is required\n\(usage)") }
            return value
        }
        func integer(_ text: String) throws -> Int {
            guard let value = Int(text.replacingOccurrences(of: "_", with: "")), value > 0 else {
                throw BenchmarkFailure("\(text) is not a positive number")
            }
            return value
        }
        switch mode {
        case nil:
            if flags.contains("help") { return .help }
            return .coordinate(try RunOptions(values: values, full: flags.contains("full")
                || environment["MODELSTORE_BENCH_FULL"] == "1", integer: integer))
        case "worker":
            guard let contender = Contender(rawValue: try required("contender")) else {
                throw BenchmarkFailure("unknown contender\n\(usage)")
            }
            return .worker(
                contender: contender, records: try integer(try required("records")),
                directory: try required("directory"), report: try required("report"))
        case "tuning":
            let options = try RunOptions(values: values, full: false, integer: integer)
            return .tuning(
                records: try values["records"].map(integer) ?? 1_000_000, rounds: options.runs ?? 3,
                directory: options.workDirectory)
        case "checksum":
            return .checksum(rounds: try values["runs"].map(integer) ?? 5)
        case "eviction-scale":
            let options = try RunOptions(values: values, full: false, integer: integer)
            return .evictionScale(
                records: try values["records"].map(integer) ?? 1_000_000, directory: options.workDirectory)
        case "hit-ratio":
            let options = try RunOptions(values: values, full: false, integer: integer)
            return .hitRatio(
                traces: try required("traces"), directory: options.workDirectory, json: values["json"],
                only: values["only"])
        case "readthrough":
            let options = try RunOptions(values: values, full: false, integer: integer)
            return .readThrough(rounds: options.runs ?? 5, directory: options.workDirectory)
        case "fleet":
            let options = try RunOptions(values: values, full: false, integer: integer)
            return .fleet(rounds: options.runs ?? 15, directory: options.workDirectory)
        case "fleet-watch":
            return .fleetWatch(
                port: try integer(try required("port")), directory: try required("workdir"), prefix: try required("prefix"))
        case "collections":
            let options = try RunOptions(values: values, full: false, integer: integer)
            return .collections(
                records: try values["records"].map(integer) ?? 5_000, rounds: options.runs ?? 15,
                directory: options.workDirectory)
        case "metadata":
            let options = try RunOptions(values: values, full: false, integer: integer)
            return .metadata(
                records: try values["records"].map(integer) ?? 20_000, rounds: options.runs ?? 5,
                directory: options.workDirectory)
        case "backup":
            let options = try RunOptions(values: values, full: false, integer: integer)
            return .backup(
                records: try values["records"].map(integer) ?? 1_000_000, rounds: options.runs ?? 3,
                directory: options.workDirectory)
        case "core":
            let options = try RunOptions(values: values, full: false, integer: integer)
            return .core(
                records: try values["records"].map(integer) ?? 20_000, rounds: options.runs ?? 5,
                directory: options.workDirectory)
        case "encryption":
            let options = try RunOptions(values: values, full: false, integer: integer)
            return .encryption(
                records: try values["records"].map(integer) ?? 20_000, rounds: options.runs ?? 5,
                directory: options.workDirectory)
        case "indexes":
            let options = try RunOptions(values: values, full: false, integer: integer)
            return .indexes(
                records: try values["records"].map(integer) ?? 100_000, rounds: options.runs ?? 3,
                directory: options.workDirectory)
        case "index-puts":
            let options = try RunOptions(values: values, full: false, integer: integer)
            return .indexPuts(
                records: try values["records"].map(integer) ?? 100_000, rounds: options.runs ?? 7,
                directory: options.workDirectory)
        case "concurrency":
            let options = try RunOptions(values: values, full: false, integer: integer)
            var concurrency = ConcurrencyOptions(directory: options.workDirectory, jsonPath: options.jsonPath)
            if let records = values["records"] { concurrency.records = try integer(records) }
            concurrency.rounds = options.runs ?? 3
            if let readers = values["readers"] { concurrency.readers = try integer(readers) }
            if let writers = values["writers"] { concurrency.writers = try integer(writers) }
            if let seconds = values["idle-seconds"] { concurrency.idleSeconds = Double(try integer(seconds)) }
            if let seconds = values["seconds"] { concurrency.writeSeconds = Double(try integer(seconds)) }
            if let nice = values["writer-nice"] {
                guard let value = Int(nice), (-20...19).contains(value) else { throw BenchmarkFailure("--writer-nice is -20 to 19") }
                concurrency.writerNice = value
            }
            if let mebibytes = values["write-buffer"] { concurrency.writeBufferSize = try integer(mebibytes) << 20 }
            if let only = values["only"] {
                guard ["scaling", "latency", "hits"].contains(only) else {
                    throw BenchmarkFailure("--only is scaling, latency or hits")
                }
                concurrency.only = only
            }
            return .concurrency(concurrency)
        case "memory-check":
            guard let phase = MemoryCheckPhase(rawValue: try required("phase")) else {
                throw BenchmarkFailure("--phase is import or enumerate")
            }
            return .memoryCheck(
                phase: phase, records: try integer(try required("records")),
                directory: try required("directory"), report: try required("report"))
        default:
            throw BenchmarkFailure("unknown command \(mode!)\n\(usage)")
        }
    }
}

/// What the coordinator runs.
struct RunOptions {
    /// Record counts, smallest first.
    var records: [Int]
    /// Runs per record count; nil picks 5 below 1,000,000 records and 3 from there on.
    var runs: Int?
    var contenders: [Contender]
    /// Where databases are written; a fresh folder in the temporary directory by default.
    var workDirectory: String
    /// A file to write the markdown report to, besides standard output.
    var markdownPath: String?
    /// A file to write every worker's raw samples to, as JSON.
    var jsonPath: String?

    init(values: [String: String], full: Bool, integer: (String) throws -> Int) throws {
        if let list = values["records"] {
            records = try list.split(separator: ",").map { try integer(String($0)) }.sorted()
        } else {
            records = full ? [100_000, 1_000_000] : [100_000]
        }
        runs = try values["runs"].map(integer)
        if let list = values["contenders"] {
            contenders = try list.split(separator: ",").map { name in
                guard let contender = Contender(rawValue: String(name)) else {
                    throw BenchmarkFailure("unknown contender \(name)\n\(Command.usage)")
                }
                return contender
            }
        } else {
            contenders = Contender.allCases
        }
        workDirectory = values["workdir"]
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("modelstore-bench-\(getpid())").path
        markdownPath = values["markdown"]
        jsonPath = values["json"]
    }

    /// How many runs to make at `records` records.
    func runs(atRecords records: Int) -> Int {
        runs ?? (records >= 1_000_000 ? 3 : 5)
    }
}
