/// Checks a fleet's recorded ``History`` against what the shared tier promises: no read older
/// than the bound allows, no acknowledged write lost, every node on one value per key.
///
/// Writes of one key are ordered by real time only: W precedes W' when W ended before W'
/// started; overlapping writes are concurrent, and either may win. An acknowledged write is
/// *due* on a node `bound` after it was acknowledged, or, when a fault cut that node off from
/// the writer meanwhile (Redis down, the node paused: ``HistoryIsolation``), `bound` after the
/// fault ended, as the README's consistency table promises. A read on a node may return W's
/// value unless an acknowledged W' that W precedes was due there before the read began (the
/// reader should then see W' or something newer).
///
/// A nil read is the value of a removal (or the key's initial absence); when no removal could
/// explain it, because the writes it may still see are all `set`s, it is a *miss*: counted
/// while faults are active, a violation before the first and once the fleet settled. A write
/// without an answer (its node killed) may or may not have happened: reads may return it, but
/// it never overwrites anything. At the end, with every client stopped, each node's value of
/// each key must be the value of a maximal write (one that no acknowledged write follows), and
/// every node must read the same.
struct HistoryChecker {
    /// What is checked.
    let history: History
    /// What its reads are held to.
    let bounds: HistoryBounds

    /// From the first fault's start to the last one's end; nil when the run had none.
    private let faultWindow: ClosedRange<Duration>?
    /// The faults that cut nodes off, earliest first.
    private let outages: [HistoryFault]
    /// Each key's writes (and its initial absence).
    private let writes: [String: [CheckedWrite]]

    /// A checker of `history` (nothing is checked until ``check()``).
    init(_ history: History, bounds: HistoryBounds = HistoryBounds()) {
        self.history = history
        self.bounds = bounds
        if let first = history.faults.map(\.start).min(), let last = history.faults.map(\.end).max() {
            faultWindow = first...max(first, last)
        } else {
            faultWindow = nil
        }
        outages = history.faults.filter { $0.isolates != nil }.sorted { $0.start < $1.start }
        var writes: [String: [CheckedWrite]] = [:]
        for operation in history.operations where operation.isWrite {
            writes[operation.key, default: [.initialAbsence]].append(CheckedWrite(operation))
        }
        self.writes = writes
    }

    /// Checks every read, the final state and the nodes' failures.
    func check() -> HistoryVerdict {
        var verdict = HistoryVerdict()
        var due = DueTimes(checker: self)
        for read in history.operations where read.action == .get {
            guard case .read(let value) = read.outcome else { continue }
            verdict.readsChecked += 1
            check(read, value: value, due: &due, into: &verdict)
        }
        checkFinalState(into: &verdict)
        verdict.violations += history.nodeFailures.map(HistoryViolation.nodeFailure)
        verdict.violations.sort { $0.time < $1.time }
        return verdict
    }

    // MARK: - Reads

    /// Checks one client read that returned `value`.
    private func check(
        _ read: HistoryOperation, value: String?, due: inout DueTimes, into verdict: inout HistoryVerdict
    ) {
        let writes = self.writes[read.key] ?? [.initialAbsence]
        let phase = bounds.phase(of: read.start, faults: faultWindow)
        let bound = bounds.staleness(in: phase)
        let latest = due.latest(of: read.key, writes, on: read.node, bound: bound, before: read.start)
        guard let value else {
            // Any removal the read may still see explains it; else the value was lost (for now).
            let explained = writes.contains {
                $0.value == nil && $0.start < read.end && !Self.overwritten($0, by: latest.write)
            }
            if explained { return }
            if phase.allowsMisses {
                verdict.misses.append(HistoryMiss(read: read, latest: latest.write, due: latest.due, phase: phase))
            } else {
                verdict.violations.append(.missAfterSettling(read: read, latest: latest.write, due: latest.due))
            }
            return
        }
        guard let write = writes.first(where: { $0.value == value }), write.start < read.end else {
            verdict.violations.append(.unknownValue(read: read))
            return
        }
        if Self.overwritten(write, by: latest.write) {
            verdict.violations.append(
                .staleRead(read: read, overwritten: write, overwriting: latest.write, due: latest.due, bound: bound))
        } else if Self.overwritten(write, by: Self.latestAcknowledged(in: writes, endedBefore: read.start)) {
            verdict.readsWithinBound += 1
        }
    }

    /// When `write` is due on `reader`: `bound` after it was acknowledged, pushed to `bound`
    /// after the end of each outage that cut the two nodes apart before it was due.
    func due(_ write: CheckedWrite, on reader: Int, bound: Duration) -> Duration {
        var due = write.end + bound
        for outage in outages where outage.isolates!.separates(writer: write.operation?.node, reader: reader) {
            if outage.start <= due && outage.end >= write.end { due = max(due, outage.end + bound) }
        }
        return due
    }

    // MARK: - The end

    /// Checks the final reads: one value per key across nodes, each the value of a maximal write.
    private func checkFinalState(into verdict: inout HistoryVerdict) {
        let reads = Dictionary(grouping: history.finalReads, by: \.key)
        for key in reads.keys.sorted() {
            let finals = reads[key]!.sorted { $0.node < $1.node }
            var values: [Int: String?] = [:]
            for read in finals {
                guard case .read(let value) = read.outcome else { continue }
                values[read.node] = value
                checkFinal(read, value: value, into: &verdict)
            }
            if Set(values.values).count > 1 {
                verdict.violations.append(.split(key: key, values: values))
            }
        }
    }

    /// Checks one final read against the key's maximal writes.
    private func checkFinal(_ read: HistoryOperation, value: String?, into verdict: inout HistoryVerdict) {
        let writes = self.writes[read.key] ?? [.initialAbsence]
        // Every write ended before the final reads began: all acknowledged ones count.
        let latest = Self.latestAcknowledged(in: writes, endedBefore: read.start)
        let maximal = writes.filter { !Self.overwritten($0, by: latest) }
        guard let value else {
            if !maximal.contains(where: { $0.value == nil }) {
                verdict.violations.append(.lostWrite(read: read, maximal: maximal))
            }
            return
        }
        guard let write = writes.first(where: { $0.value == value }) else {
            verdict.violations.append(.unknownValue(read: read))
            return
        }
        if Self.overwritten(write, by: latest) {
            verdict.violations.append(.staleAtEnd(read: read, overwritten: write, overwriting: latest))
        }
    }

    // MARK: - Order

    /// Of the acknowledged writes that ended before `horizon`, the one that started last (the
    /// key's initial absence if none did). A write is overwritten by one of them exactly when
    /// it ended before this one started.
    static func latestAcknowledged(in writes: [CheckedWrite], endedBefore horizon: Duration) -> CheckedWrite {
        var latest = CheckedWrite.initialAbsence
        for write in writes where write.acknowledged && write.end < horizon && write.start > latest.start {
            latest = write
        }
        return latest
    }

    /// Whether `write` ended before `later` started: `later` replaced it.
    static func overwritten(_ write: CheckedWrite, by later: CheckedWrite) -> Bool {
        write.end < later.start
    }
}

/// The times each write is due on each node, computed once per key, node and bound: a run
/// has tens of thousands of reads over a few hundred writes per key.
struct DueTimes {
    let checker: HistoryChecker
    private var cache: [Slot: [Duration]] = [:]

    /// One key's writes as seen from one node under one bound.
    private struct Slot: Hashable {
        var key: String
        var node: Int
        var bound: Duration
    }

    /// Due times for `checker`'s writes, none computed yet.
    init(checker: HistoryChecker) {
        self.checker = checker
    }

    /// Of the acknowledged writes in `writes` (the writes of `key`) due on `node` before `time`,
    /// the one that started last (the key's initial absence if none), with when it was due.
    mutating func latest(
        of key: String, _ writes: [CheckedWrite], on node: Int, bound: Duration, before time: Duration
    ) -> (write: CheckedWrite, due: Duration) {
        let slot = Slot(key: key, node: node, bound: bound)
        let times = cache[slot] ?? writes.map { checker.due($0, on: node, bound: bound) }
        cache[slot] = times
        var latest = (write: CheckedWrite.initialAbsence, due: CheckedWrite.initialAbsence.end)
        for (write, due) in zip(writes, times)
        where write.acknowledged && due < time && write.start > latest.write.start {
            latest = (write, due)
        }
        return latest
    }
}
