import Foundation

/// The performance targets, each checked against this run's numbers.
struct TargetCheck {
    let results: [Int: [WorkerReport]]
    let memoryChecks: [MemoryCheckResult]

    private struct Row {
        var target: String
        var measured: String
        var met: Bool?
    }

    func table() -> [String] {
        var rows: [Row] = []
        for records in results.keys.sorted() {
            let table = ResultTable(records: records, reports: results[records]!)
            let size = formatCount(records)
            for workload: Workload in [.putSequential, .putRandom, .importBatched, .getExisting, .scan] {
                rows.append(ratioRow(
                    "ModelStore JSON, LevelDB defaults ≤ 1.10x C API + JSON, \(workload.title), \(size)",
                    table.ratio(.modelStoreJSONLevelDBDefaults, workload), limit: 1.10))
            }
            rows.append(ratioRow(
                "ModelStore JSON, LevelDB defaults sweep ≤ 1.20x C API floor, \(size)",
                table.ratio(.modelStoreJSONLevelDBDefaults, .sweep), limit: 1.20))
            rows.append(ratioRow(
                "ModelStore JSON (its defaults) get absent ≥ 3x faster than C API defaults, \(size)",
                table.ratio(.modelStoreJSON, .getAbsent), limit: 1.0 / 3.0))
            rows.append(pairedRow(
                "ModelStore JSON (its defaults) put random no slower than with LevelDB defaults, \(size)",
                table: table, contender: .modelStoreJSON, reference: .modelStoreJSONLevelDBDefaults,
                workload: .putRandom, limit: 1.0))
            if let hit = table.microseconds(.modelStoreObjectCache, .cacheHit) {
                rows.append(Row(
                    target: "Object-cache hit ≤ 0.5 µs, \(size)", measured: formatMicroseconds(hit) + " µs",
                    met: hit <= 0.5))
            }
        }
        for check in memoryChecks {
            let peak = check.report.peakResidentBytes
            let what = check.phase == .importRecords ? "Import" : "Enumerate (decode)"
            rows.append(Row(
                target: "\(what) \(formatCount(check.report.records)) records peak RSS < 150 MiB",
                measured: "\(peak >> 20) MiB", met: peak < memoryCheckLimitBytes))
        }
        if memoryChecks.isEmpty {
            rows.append(Row(target: "Import / enumerate 1,000,000 records under 150 MiB", measured: "not run", met: nil))
        }
        return ["| Target | Measured | Met |", "|---|---:|:---:|"] + rows.map { row in
            let verdict = row.met.map { $0 ? "yes" : "**no**" } ?? "–"
            return "| \(row.target) | \(row.measured) | \(verdict) |"
        }
    }

    private func ratioRow(_ target: String, _ ratio: Double?, limit: Double) -> Row {
        guard let ratio else { return Row(target: target, measured: "not run", met: nil) }
        return Row(target: target, measured: String(format: "%.2fx", ratio), met: ratio <= limit)
    }

    /// A ratio between two contenders that share a baseline, paired run by run.
    private func pairedRow(
        _ target: String, table: ResultTable, contender: Contender, reference: Contender,
        workload: Workload, limit: Double
    ) -> Row {
        let mine = table.samples(contender, workload)
        let theirs = table.samples(reference, workload)
        let ratio = median(zip(mine, theirs).map { $0.microsecondsPerOperation / $1.microsecondsPerOperation })
        return ratioRow(target, ratio, limit: limit)
    }
}
