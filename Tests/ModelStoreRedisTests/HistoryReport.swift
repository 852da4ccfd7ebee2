import Foundation

/// The readable account of a history run: its seed and how to rerun it, what ran, the faults,
/// the misses, and the first violations with the writes and faults around each.
struct HistoryReport {
    /// What ran.
    let history: History
    /// What the checker found in it.
    let verdict: HistoryVerdict
    /// The bounds it was checked with.
    let bounds: HistoryBounds
    /// The lines that say how the run was made (seed, rerun command, sizes), printed first.
    let header: [String]
    /// How many misses, and violations of each kind, are shown in full
    /// (`MODELSTORE_HISTORY_SHOWN` shows more).
    var shown = ProcessInfo.processInfo.environment["MODELSTORE_HISTORY_SHOWN"].flatMap { Int($0) } ?? 3

    /// The whole report.
    var text: String {
        var lines = header
        lines.append(operationsLine)
        lines.append("Faults (\(history.faults.count)):")
        lines += history.faults.map { "  " + Self.describe($0) }
        lines.append(missesLine)
        for miss in verdict.misses.prefix(shown) {
            lines.append("  " + Self.describe(miss.read) + ", should have seen " + Self.describe(miss.latest))
            lines.append("    due at \(Self.format(miss.due))")
        }
        if verdict.passed {
            lines.append("No violations.")
        } else {
            let kinds = Dictionary(grouping: verdict.violations, by: \.kind)
            let counts = kinds.map { "\($0.value.count) \($0.key)" }.sorted()
            lines.append(
                "Violations: \(verdict.violations.count) (\(counts.joined(separator: ", "))), from "
                    + "\(Self.format(verdict.violations.map(\.time).min()!)) to \(Self.format(verdict.violations.map(\.time).max()!)); "
                    + "the first of each kind:")
            // Kinds in the order their first violation happened; a few of each, so one kind
            // (a burst of stale reads after one fault) does not hide the others.
            for kind in kinds.keys.sorted(by: { kinds[$0]![0].time < kinds[$1]![0].time }) {
                for violation in kinds[kind]!.prefix(shown) {
                    lines += describe(violation).map { "  " + $0 }
                }
            }
        }
        return lines.joined(separator: "\n")
    }

    /// How many operations of each kind ran, and how many reads were checked.
    private var operationsLine: String {
        let operations = history.operations
        let reads = operations.filter { $0.action == .get }.count
        let sets = operations.filter { if case .set = $0.action { true } else { false } }.count
        let indeterminate = operations.filter { $0.outcome == .indeterminate }.count
        return "Operations: \(operations.count) (\(reads) reads, \(sets) sets, \(operations.count - reads - sets) "
            + "removals; \(indeterminate) without an answer); reads checked: \(verdict.readsChecked), of which "
            + "\(verdict.readsWithinBound) returned an overwritten value within the bound"
    }

    /// How many misses the faults caused (allowed ones; those after settling are violations).
    private var missesLine: String {
        return "Misses while faults were active or the fleet settling (nil where an acknowledged set was due): "
            + "\(verdict.misses.count)"
    }

    // MARK: - Violations

    /// A violation in a few lines: what was read, what it should have been, and the faults
    /// from shortly before the overwritten write to the end of the read.
    private func describe(_ violation: HistoryViolation) -> [String] {
        switch violation {
        case .staleRead(let read, let overwritten, let overwriting, let due, let bound):
            return [
                "STALE READ: " + Self.describe(read),
                "  returned " + Self.describe(overwritten),
                "  overwritten by " + Self.describe(overwriting) + ", due on n\(read.node) at \(Self.format(due)), "
                    + Self.format(read.start - due) + " before the read began (bound \(Self.format(bound)))",
            ] + faults(from: overwritten.start, to: read.end)
        case .missAfterSettling(let read, let latest, let due):
            let phase = read.start < (history.faults.first?.start ?? .zero) ? "BEFORE THE FAULTS" : "AFTER SETTLING"
            return [
                "MISS \(phase): " + Self.describe(read),
                "  should have seen " + Self.describe(latest) + ", due at \(Self.format(due))",
            ] + faults(from: latest.start, to: read.end)
        case .unknownValue(let read):
            return ["UNKNOWN VALUE: " + Self.describe(read) + " (no set of this key wrote it before the read ended)"]
        case .split(let key, let values):
            let nodes = values.keys.sorted().map { "n\($0)=\(values[$0]!.map { "\"\($0)\"" } ?? "nil")" }
            return ["SPLIT: \(key) at the end: " + nodes.joined(separator: ", ")]
        case .lostWrite(let read, let maximal):
            return ["LOST WRITE: final " + Self.describe(read), "  the last writes were:"]
                + maximal.map { "    " + Self.describe($0) }
                + faults(from: maximal.map(\.start).min() ?? .zero, to: read.start)
        case .staleAtEnd(let read, let overwritten, let overwriting):
            return [
                "STALE AT THE END: final " + Self.describe(read), "  returned " + Self.describe(overwritten),
                "  overwritten by " + Self.describe(overwriting),
            ] + faults(from: overwritten.start, to: read.start)
        case .nodeFailure(let failure):
            return ["NODE FAILURE: n\(failure.node) at \(Self.format(failure.at)): \(failure.what)"]
        }
    }

    /// The faults that overlap the second before `start` up to `end`, one line each: the first
    /// four (those closest to the write), then how many more.
    private func faults(from start: Duration, to end: Duration) -> [String] {
        let around = history.faults.filter { $0.end >= start - .seconds(1) && $0.start <= end }
        if around.isEmpty { return ["  faults around: none"] }
        let more = around.count > 4 ? ["    and \(around.count - 4) more until \(Self.format(end))"] : []
        return ["  faults around:"] + around.prefix(4).map { "    " + Self.describe($0) } + more
    }

    // MARK: - Pieces

    /// A client's read (or final read) with its node, times and answer.
    static func describe(_ read: HistoryOperation) -> String {
        let value: String
        switch read.outcome {
        case .read(let read): value = read.map { "\"\($0)\"" } ?? "nil"
        case .acknowledged: value = "ok"
        case .indeterminate: value = "no answer"
        }
        return "get \(read.key) on n\(read.node) at \(span(read.start, read.end)) -> \(value)"
    }

    /// A write with its node and times, and whether it was acknowledged.
    static func describe(_ write: CheckedWrite) -> String {
        guard let operation = write.operation else { return "the key's initial absence" }
        let what = write.value.map { "set \(operation.key) \"\($0)\"" } ?? "remove \(operation.key)"
        return "\(what) on n\(operation.node) at \(span(write.start, write.end))"
            + (write.acknowledged ? " (acknowledged)" : " (no answer)")
    }

    /// A fault with when it started and when the fleet was whole again.
    static func describe(_ fault: HistoryFault) -> String {
        "\(span(fault.start, fault.end))  \(fault.description)"
    }

    /// `start` to `end` in seconds since the run's origin, to the millisecond.
    static func span(_ start: Duration, _ end: Duration) -> String {
        String(format: "%.3f-%.3f s", start.inSeconds, end.inSeconds)
    }

    /// A duration in seconds, to the millisecond.
    static func format(_ duration: Duration) -> String {
        String(format: "%.3f s", duration.inSeconds)
    }
}
