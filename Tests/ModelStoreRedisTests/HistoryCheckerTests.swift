import Testing

/// The history checker on hand-made histories: what it must catch, and what it must allow.
@Suite struct HistoryCheckerTests {
    // MARK: - Reads

    @Test func aReadOfAValueOverwrittenLongBeforeItBeganIsStale() {
        let history = History(operations: [
            set("k", "a", 0, 1),
            set("k", "b", 10, 11),
            get("k", "a", 2_000, 2_001, node: 1),
        ])
        let verdict = HistoryChecker(history).check()
        guard case .staleRead(let read, let overwritten, let overwriting, _, _)? = verdict.violations.first else {
            Issue.record("no stale read in \(verdict.violations)")
            return
        }
        #expect(verdict.violations.count == 1)
        #expect(read.node == 1)
        #expect(overwritten.value == "a")
        #expect(overwriting.value == "b")
    }

    @Test func aReadOfAnOverwrittenValueWithinTheBoundIsAllowed() {
        let history = History(operations: [set("k", "a", 0, 1), set("k", "b", 10, 11), get("k", "a", 300, 301)])
        let verdict = HistoryChecker(history).check()
        #expect(verdict.passed, "\(verdict.violations)")
        #expect(verdict.readsWithinBound == 1)
    }

    @Test func aWriteAcknowledgedWhileNodesAreCutOffIsDueOnlyABoundAfterTheOutage() {
        let outage = HistoryFault(
            description: "Redis killed", start: .milliseconds(50), end: .milliseconds(3_000), isolates: .everyNode)
        let paused = HistoryFault(
            description: "n2 paused", start: .milliseconds(5_000), end: .milliseconds(6_000), isolates: .node(2))
        let history = History(
            operations: [
                set("k", "a", 0, 1), set("k", "b", 100, 101, node: 1),
                // Within the bound after the outage: allowed; after it: stale.
                get("k", "a", 3_500, 3_501), get("k", "a", 4_100, 4_101),
                // Node 2 was paused: its reads are held to the bound from the pause's end.
                set("k", "c", 4_900, 4_901), get("k", "b", 6_500, 6_501, node: 2), get("k", "b", 6_500, 6_501),
            ],
            faults: [outage, paused])
        let verdict = HistoryChecker(history).check()
        let stale = verdict.violations.compactMap { violation -> Duration? in
            if case .staleRead(let read, _, _, _, _) = violation { read.start } else { nil }
        }
        #expect(stale == [.milliseconds(4_100), .milliseconds(6_500)], "\(verdict.violations)")
        #expect(verdict.violations.count == 2)
    }

    @Test func eitherOfTwoOverlappingWritesMayWin() {
        let history = History(
            operations: [
                set("k", "a", 0, 100), set("k", "b", 50, 150),
                get("k", "a", 2_000, 2_001), get("k", "b", 2_002, 2_003, node: 1),
            ],
            finalReads: [get("k", "a", 3_000, 3_001), get("k", "a", 3_000, 3_001, node: 1)])
        let verdict = HistoryChecker(history).check()
        #expect(verdict.passed, "\(verdict.violations)")
    }

    @Test func aWriteWithoutAnAnswerMayAppearOrNot() {
        var unanswered = set("k", "b", 10, 20)
        unanswered.outcome = .indeterminate
        let history = History(
            operations: [set("k", "a", 0, 1), unanswered, get("k", "b", 2_000, 2_001), get("k", "a", 2_002, 2_003)],
            finalReads: [get("k", "b", 3_000, 3_001), get("k", "b", 3_000, 3_001, node: 1)])
        let verdict = HistoryChecker(history).check()
        #expect(verdict.passed, "\(verdict.violations)")
    }

    @Test func aValueNoWriteOfTheKeyWroteIsCaught() {
        let history = History(operations: [set("j", "a", 0, 1), get("k", "a", 100, 101), get("k", "later", 200, 201),
                                           set("k", "later", 300, 301)])
        let verdict = HistoryChecker(history).check()
        #expect(verdict.violations.count == 2)
        #expect(verdict.violations.allSatisfy { if case .unknownValue = $0 { true } else { false } })
    }

    // MARK: - Misses

    @Test func aMissWhileFaultsAreActiveIsCountedAndOneAfterSettlingFails() {
        let bounds = HistoryBounds(duringFaults: .seconds(1), calm: .milliseconds(500), settle: .seconds(5))
        let history = History(
            operations: [
                set("k", "a", 0, 1),
                get("k", nil, 2_000, 2_001),
                get("k", nil, 9_000, 9_001),
            ],
            faults: [HistoryFault(description: "FLUSHALL", start: .milliseconds(1_500), end: .milliseconds(1_501))])
        let verdict = HistoryChecker(history, bounds: bounds).check()
        #expect(verdict.misses.map(\.read.start) == [.milliseconds(2_000)])
        #expect(verdict.violations.count == 1)
        guard case .missAfterSettling(let read, let latest, _)? = verdict.violations.first else {
            Issue.record("no miss after settling in \(verdict.violations)")
            return
        }
        #expect(read.start == .milliseconds(9_000))
        #expect(latest.value == "a")
    }

    @Test func aNilReadAfterARemovalIsNoMiss() {
        let history = History(operations: [
            get("k", nil, 0, 1), set("k", "a", 10, 11), remove("k", 20, 21), get("k", nil, 2_000, 2_001),
        ])
        let verdict = HistoryChecker(history).check()
        #expect(verdict.passed, "\(verdict.violations)")
        #expect(verdict.misses.isEmpty)
    }

    // MARK: - The end

    @Test func anAcknowledgedWriteMissingAtTheEndIsLost() {
        let history = History(
            operations: [set("k", "a", 0, 1), remove("k", 10, 11), set("k", "b", 20, 21)],
            finalReads: [get("k", nil, 3_000, 3_001), get("k", nil, 3_000, 3_001, node: 1)])
        let verdict = HistoryChecker(history).check()
        #expect(verdict.violations.count == 2)
        #expect(verdict.violations.allSatisfy { if case .lostWrite = $0 { true } else { false } })
    }

    @Test func anOverwrittenValueAtTheEndIsStale() {
        let history = History(
            operations: [set("k", "a", 0, 1), set("k", "b", 20, 21)],
            finalReads: [get("k", "a", 3_000, 3_001)])
        let verdict = HistoryChecker(history).check()
        guard case .staleAtEnd(_, let overwritten, let overwriting)? = verdict.violations.first else {
            Issue.record("no stale value at the end in \(verdict.violations)")
            return
        }
        #expect(overwritten.value == "a")
        #expect(overwriting.value == "b")
    }

    @Test func nodesThatEndOnDifferentValuesAreSplit() {
        let history = History(
            operations: [set("k", "a", 0, 100), set("k", "b", 50, 150)],
            finalReads: [get("k", "a", 3_000, 3_001), get("k", "b", 3_000, 3_001, node: 1)])
        let verdict = HistoryChecker(history).check()
        #expect(verdict.violations == [.split(key: "k", values: [0: "a", 1: "b"])])
    }

    @Test func theReportNamesTheSeedAndTheViolation() {
        let history = History(operations: [set("k", "a", 0, 1), set("k", "b", 10, 11), get("k", "a", 2_000, 2_001)])
        let verdict = HistoryChecker(history).check()
        let report = HistoryReport(history: history, verdict: verdict, bounds: HistoryBounds(), header: ["seed 42"])
        #expect(report.text.contains("seed 42"))
        #expect(report.text.contains("STALE READ: get k on n0 at 2.000-2.001 s -> \"a\""))
        let overwriting = "overwritten by set k \"b\" on n0 at 0.010-0.011 s (acknowledged), due on n0 at 0.511 s"
        #expect(report.text.contains(overwriting))
    }

    // MARK: - Hand-made operations (times in milliseconds)

    private func set(_ key: String, _ value: String, _ start: Int, _ end: Int, node: Int = 0) -> HistoryOperation {
        operation(key, .set(value), start, end, .acknowledged, node: node)
    }

    private func remove(_ key: String, _ start: Int, _ end: Int, node: Int = 0) -> HistoryOperation {
        operation(key, .remove, start, end, .acknowledged, node: node)
    }

    private func get(_ key: String, _ value: String?, _ start: Int, _ end: Int, node: Int = 0) -> HistoryOperation {
        operation(key, .get, start, end, .read(value), node: node)
    }

    private func operation(
        _ key: String, _ action: HistoryOperation.Action, _ start: Int, _ end: Int, _ outcome: HistoryOperation.Outcome,
        node: Int
    ) -> HistoryOperation {
        HistoryOperation(
            key: key, node: node, action: action, start: .milliseconds(start), end: .milliseconds(end),
            outcome: outcome)
    }
}
