import Foundation

/// The performance targets, each checked against this run's numbers.
struct TargetCheck {
    let results: [Int: [WorkerReport]]
    let memoryChecks: [MemoryCheckResult]

    private struct Row {
        var target: String
        var measured: String
        var met: Bool?
        var cpuMeasured: String = "–"
        var cpuMet: Bool? = nil
    }

    func table() -> [String] {
        var rows: [Row] = []
        for records in results.keys.sorted() {
            let table = ResultTable(records: records, reports: results[records]!)
            let size = formatCount(records)
            for workload: Workload in [.putSequential, .putRandom, .importBatched, .getExisting, .scan] {
                rows.append(ratioRow(
                    "ModelStore JSON, LevelDB defaults ≤ 1.10x C API + JSON, \(workload.title), \(size)",
                    table: table, contender: .modelStoreJSONLevelDBDefaults, workload: workload, limit: 1.10))
            }
            rows.append(ratioRow(
                "ModelStore JSON, LevelDB defaults sweep ≤ 1.20x C API floor, \(size)",
                table: table, contender: .modelStoreJSONLevelDBDefaults, workload: .sweep, limit: 1.20))
            rows.append(ratioRow(
                "ModelStore JSON (its defaults) get absent ≥ 3x faster than C API defaults, \(size)",
                table: table, contender: .modelStoreJSON, workload: .getAbsent, limit: 1.0 / 3.0))
            rows.append(pairedRow(
                "ModelStore JSON (its defaults) put random no slower than with LevelDB defaults, \(size)",
                table: table, contender: .modelStoreJSON, reference: .modelStoreJSONLevelDBDefaults,
                workload: .putRandom, limit: 1.0))
            if let hit = table.microseconds(.modelStoreObjectCache, .cacheHit),
                let cpuHit = table.cpuMicroseconds(.modelStoreObjectCache, .cacheHit)
            {
                rows.append(Row(
                    target: "Object-cache hit ≤ 0.5 µs, \(size)", measured: formatMicroseconds(hit) + " µs",
                    met: hit <= 0.5, cpuMeasured: formatMicroseconds(cpuHit) + " µs", cpuMet: cpuHit <= 0.5))
            }
        }
        for check in memoryChecks {
            let total = check.report.peakResidentBytes
            let what = check.phase == .importRecords ? "Import" : "Enumerate (decode)"
            rows.append(Row(
                target: "\(what) \(formatCount(check.report.records)) records, peak total RSS < 150 MiB",
                measured: "\(total >> 20) MiB", met: total < memoryCheckLimitBytes))
            if let anonymous = check.report.peakAnonymousBytes {
                rows.append(Row(
                    target: "\(what) \(formatCount(check.report.records)) records, peak anonymous RSS < 150 MiB",
                    measured: "\(anonymous >> 20) MiB", met: anonymous < memoryCheckLimitBytes))
            }
        }
        if memoryChecks.isEmpty {
            rows.append(Row(target: "Import / enumerate 1,000,000 records under 150 MiB", measured: "not run", met: nil))
        }
        func verdict(_ met: Bool?) -> String { met.map { $0 ? "yes" : "**no**" } ?? "–" }
        return [
            "| Target | Wall clock | Met | CPU time | Met |",
            "|---|---:|:---:|---:|:---:|",
        ] + rows.map { row in
            "| \(row.target) | \(row.measured) | \(verdict(row.met)) | \(row.cpuMeasured) | \(verdict(row.cpuMet)) |"
        }
    }

    private func ratioRow(
        _ target: String, table: ResultTable, contender: Contender, workload: Workload, limit: Double
    ) -> Row {
        guard let wall = table.ratio(contender, workload), let cpu = table.ratio(contender, workload, cpu: true) else {
            return Row(target: target, measured: "not run", met: nil)
        }
        return Row(
            target: target, measured: String(format: "%.2fx", wall), met: wall <= limit,
            cpuMeasured: String(format: "%.2fx", cpu), cpuMet: cpu <= limit)
    }

    /// A ratio between two contenders that share a baseline, paired run by run.
    private func pairedRow(
        _ target: String, table: ResultTable, contender: Contender, reference: Contender,
        workload: Workload, limit: Double
    ) -> Row {
        let pairs = zip(table.samples(contender, workload), table.samples(reference, workload))
        guard let wall = median(pairs.map { $0.microsecondsPerOperation / $1.microsecondsPerOperation }),
            let cpu = median(pairs.map { $0.cpuMicrosecondsPerOperation / $1.cpuMicrosecondsPerOperation })
        else { return Row(target: target, measured: "not run", met: nil) }
        return Row(
            target: target, measured: String(format: "%.2fx", wall), met: wall <= limit,
            cpuMeasured: String(format: "%.2fx", cpu), cpuMet: cpu <= limit)
    }
}
