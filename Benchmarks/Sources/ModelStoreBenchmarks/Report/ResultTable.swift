import Foundation

/// The statistics of one record count: medians per contender and workload, and paired
/// per-run ratios to each contender's baseline.
struct ResultTable {
    let records: Int
    let reports: [WorkerReport]

    /// Contenders in report order, with the workloads any of them ran.
    var contenders: [Contender] {
        Contender.allCases.filter { contender in reports.contains { $0.contender == contender } }
    }

    var workloads: [Workload] {
        Workload.allCases.filter { workload in
            reports.contains { $0.samples.contains { $0.workload == workload } }
        }
    }

    /// Every run's samples of `workload` for `contender`, in run order.
    func samples(_ contender: Contender, _ workload: Workload) -> [Sample] {
        reports.filter { $0.contender == contender }.compactMap { report in
            report.samples.first { $0.workload == workload }
        }
    }

    /// The median µs per operation.
    func microseconds(_ contender: Contender, _ workload: Workload) -> Double? {
        median(samples(contender, workload).map(\.microsecondsPerOperation))
    }

    /// The median CPU µs per operation.
    func cpuMicroseconds(_ contender: Contender, _ workload: Workload) -> Double? {
        median(samples(contender, workload).map(\.cpuMicrosecondsPerOperation))
    }

    /// The median over runs of this run's µs/op divided by the baseline's in the same run
    /// (CPU µs/op with `cpu`). The object cache, which has no workload of its own in the
    /// baseline, is compared with the baseline's random get.
    func ratio(_ contender: Contender, _ workload: Workload, cpu: Bool = false) -> Double? {
        guard let baseline = contender.baseline else { return nil }
        let baselineWorkload = workload == .cacheHit ? .getExisting : workload
        let mine = samples(contender, workload)
        let theirs = samples(baseline, baselineWorkload)
        let paired = zip(mine, theirs).map { mine, theirs in
            cpu
                ? mine.cpuMicrosecondsPerOperation / theirs.cpuMicrosecondsPerOperation
                : mine.microsecondsPerOperation / theirs.microsecondsPerOperation
        }
        return median(paired)
    }

    func timeTable(cpu: Bool = false) -> [String] {
        table { contender, workload in
            let time = cpu ? cpuMicroseconds(contender, workload) : microseconds(contender, workload)
            guard let time else { return "–" }
            let cell = formatMicroseconds(time)
            guard let ratio = ratio(contender, workload, cpu: cpu) else { return cell }
            return cell + String(format: " (%.2fx)", ratio)
        }
    }

    func allocationTable() -> [String] {
        table { contender, workload in
            let values = samples(contender, workload).compactMap(\.allocationsPerOperation)
            return median(values).map { String(format: $0 < 10 ? "%.2f" : "%.1f", $0) } ?? "–"
        }
    }

    func spreadTable(cpu: Bool = false) -> [String] {
        table { contender, workload in
            let values = samples(contender, workload).map {
                cpu ? $0.cpuMicrosecondsPerOperation : $0.microsecondsPerOperation
            }
            guard let middle = median(values), let low = values.min(), let high = values.max(), middle > 0 else {
                return "–"
            }
            return String(format: "%.0f%%", (high - low) / middle * 100)
        }
    }

    private func table(_ cell: (Contender, Workload) -> String) -> [String] {
        let workloads = workloads
        var lines = [
            "| Contender | " + workloads.map(\.title).joined(separator: " | ") + " |",
            "|---|" + String(repeating: "---:|", count: workloads.count),
        ]
        for contender in contenders {
            let cells = workloads.map { contender.workloads.contains($0) ? cell(contender, $0) : "" }
            let filled = cells.map { $0.isEmpty ? " " : $0 }
            lines.append("| \(contender.title) | " + filled.joined(separator: " | ") + " |")
        }
        return lines
    }
}

/// Three significant digits, at least two decimals below 10 µs.
func formatMicroseconds(_ value: Double) -> String {
    switch value {
    case ..<10: return String(format: "%.2f", value)
    case ..<100: return String(format: "%.1f", value)
    default: return String(format: "%.0f", value)
    }
}
