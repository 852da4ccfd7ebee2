import Foundation

/// Turns the workers' reports into the markdown tables the README quotes.
struct Report {
    let machine: MachineDescription
    /// Every worker report, by record count, in the order they ran.
    let results: [Int: [WorkerReport]]
    let memoryChecks: [MemoryCheckResult]
    let options: RunOptions
    let payloadSizes: PayloadSizes?

    func markdown() -> String {
        var lines = ["## ModelStore benchmarks", "", machine.markdown]
        if let payloadSizes { lines.append(payloadSizes.markdown) }
        lines.append("")
        lines.append("""
            Median of \(options.records.map { "\(options.runs(atRecords: $0)) runs at \(formatCount($0))" }
                .joined(separator: ", ")) records; each run starts a fresh process per contender, \
            contenders rotate order every run. Ratios are the median of each run's paired ratio to \
            the C API contender with the same codec (< 1 is faster). Writes are not synced; reads \
            run on a fully compacted database.
            """)
        for records in options.records {
            guard let reports = results[records] else { continue }
            let table = ResultTable(records: records, reports: reports)
            lines += ["", "### \(formatCount(records)) records", ""]
            lines += ["µs per operation (ratio to the C API with the same codec):", ""]
            lines += table.timeTable()
            lines += ["", "CPU µs per operation, all threads (ratio to the C API with the same codec):", ""]
            lines += table.timeTable(cpu: true)
            lines += ["", "Allocations per operation (whole process, median):", ""]
            lines += table.allocationTable()
            lines += ["", "Run-to-run spread, (max − min) / median, of wall-clock µs/op:", ""]
            lines += table.spreadTable()
            lines += ["", "… and of CPU µs/op:", ""]
            lines += table.spreadTable(cpu: true)
        }
        lines += [
            "", "### Peak memory of each worker process (MiB, median): total RSS / anonymous RSS", "",
            "Total RSS (`getrusage`) includes the table files LevelDB maps into memory, which a full scan",
            "touches entirely; anonymous RSS (heap and stacks, sampled every 10 ms) is what the process",
            "itself holds.", "",
        ]
        lines += peakMemoryTable()
        lines += ["", "### Targets", ""]
        let targets = TargetCheck(results: results, memoryChecks: memoryChecks)
        lines += targets.table()
        lines += [
            "", "### What the engine leaves for the binary codec's 3x target", "",
            "Each cell is the median paired ratio to the C API + JSON baseline. The first column",
            "stores pre-encoded bytes, so it is the best any codec and any wrapper could do.", "",
        ]
        lines += targets.engineBoundTable()
        return lines.joined(separator: "\n")
    }

    private func peakMemoryTable() -> [String] {
        let sizes = options.records.filter { results[$0] != nil }
        var lines = [
            "| Contender | " + sizes.map { formatCount($0) }.joined(separator: " | ") + " |",
            "|---|" + String(repeating: "---:|", count: sizes.count),
        ]
        let contenders = Contender.allCases.filter { contender in
            sizes.contains { results[$0]!.contains { $0.contender == contender } }
        }
        for contender in contenders {
            let cells = sizes.map { records -> String in
                let reports = results[records]!.filter { $0.contender == contender }
                let total = median(reports.map { Double($0.peakResidentBytes) })
                let anonymous = median(reports.compactMap { $0.peakAnonymousBytes.map(Double.init) })
                func mebibytes(_ value: Double?) -> String {
                    value.map { String(format: "%.0f", $0 / Double(1 << 20)) } ?? "–"
                }
                return mebibytes(total) + " / " + mebibytes(anonymous)
            }
            lines.append("| \(contender.title) | " + cells.joined(separator: " | ") + " |")
        }
        return lines
    }
}

/// `1,000,000` style.
func formatCount(_ value: Int) -> String {
    let digits = String(value)
    var result = ""
    for (index, digit) in digits.enumerated() {
        if index > 0 && (digits.count - index) % 3 == 0 { result += "," }
        result.append(digit)
    }
    return result
}
