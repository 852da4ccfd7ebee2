import Foundation

/// `plain-store-bench`: the plain-store workloads and the object-cache hit against a locked
/// dictionary, repeated in one process; prints one markdown row per workload with the median
/// and the minimum of the repetitions (µs per operation; ns for the hits), CPU time first.
@main
enum PlainStoreBench {
    static let usage = """
        Usage: plain-store-bench [--records N] [--repetitions R] [--hits H] [--only ID,ID...] [--workdir PATH]

          --records N       records per workload (default 100000)
          --repetitions R   each workload R times in this process (default 3); the table shows the median
          --hits H          reads per cache-hit workload and thread (default 1000000)
          --only IDS        run only these workloads (ids below); the others are not run at all
          --workdir PATH    where the databases go (default: a fresh folder in $TMPDIR, removed afterwards)

        Columns: median CPU time per operation (user + system, every thread), minimum CPU time, median
        wall time; µs, except ns for the hits. Workload ids:
        """

    static func main() {
        do {
            var records = 100_000
            var repetitions = 3
            var hits = 1_000_000
            var only: Set<String>? = nil
            var workdir: String? = nil
            var arguments = CommandLine.arguments.dropFirst()
            while let argument = arguments.popFirst() {
                func value() throws -> String {
                    guard let value = arguments.popFirst() else { throw BenchFailure("\(argument) needs a value") }
                    return value
                }
                switch argument {
                case "--records": records = Int(try value()) ?? records
                case "--repetitions": repetitions = Int(try value()) ?? repetitions
                case "--hits": hits = Int(try value()) ?? hits
                case "--only": only = Set(try value().split(separator: ",").map(String.init))
                case "--workdir": workdir = try value()
                case "--help", "-h":
                    print(usage)
                    for workload in workloads { print("  \(workload.id): \(workload.title)") }
                    return
                default: throw BenchFailure("unknown argument \(argument); see --help")
                }
            }
            if let only, let unknown = only.first(where: { id in !workloads.contains { $0.id == id } }) {
                throw BenchFailure("no workload \(unknown); see --help")
            }
            let directory = workdir ?? NSTemporaryDirectory() + "plain-store-bench-\(getpid())"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            defer { if workdir == nil { try? FileManager.default.removeItem(atPath: directory) } }

            let selected = { (id: String) in only?.contains(id) ?? true }
            var samples: [String: [Timing]] = [:]
            for repetition in 0..<repetitions {
                let place = directory + "/\(repetition)"
                for (id, timing) in try PlainStoreWorkloads.run(records: records, directory: place, selected: selected) {
                    samples[id, default: []].append(timing)
                }
                try CacheHitWorkloads.run(hits: hits, directory: place, selected: selected) {
                    samples[$0, default: []].append($1)
                }
                try LimitWorkloads.run(records: records, hits: hits, directory: place, selected: selected) {
                    samples[$0, default: []].append($1)
                }
                try? FileManager.default.removeItem(atPath: place)
                FileHandle.standardError.write(Data("repetition \(repetition + 1) of \(repetitions) done\n".utf8))
            }
            print("| workload | CPU | CPU min | wall |")
            print("|---|---:|---:|---:|")
            for workload in workloads {
                guard let timings = samples[workload.id] else { continue }
                let cpu = timings.map(\.cpu)
                print(
                    "| \(workload.id) | \(format(median(cpu))) | \(format(cpu.min() ?? .nan)) | "
                        + "\(format(median(timings.map(\.wall)))) |")
            }
        } catch {
            FileHandle.standardError.write(Data("plain-store-bench: \(error)\n".utf8))
            exit(1)
        }
    }

    static var workloads: [Workload] { PlainStoreWorkloads.all + CacheHitWorkloads.all + LimitWorkloads.all }

    static func format(_ value: Double) -> String { String(format: "%.4f", value) }
}
