/// A write as the checker sees it: a client's `set` or `remove`, or the absence every key
/// starts with (a removal acknowledged before the run began).
struct CheckedWrite: Sendable, Equatable {
    /// The client's operation; nil for the key's initial absence.
    var operation: HistoryOperation?
    /// The value it left; nil for a removal.
    var value: String?
    /// When it was sent, and when it was answered (or its node was known to be gone).
    var start: Duration
    var end: Duration
    /// Whether its node answered `ok`; a write without an answer may or may not have happened.
    var acknowledged: Bool

    /// The absence every key starts with, before any time the run can record.
    static let initialAbsence = CheckedWrite(
        operation: nil, value: nil, start: .seconds(-1_000_000), end: .seconds(-1_000_000), acknowledged: true)

    /// The checker's view of `operation`, a `set` or a `remove`.
    init(_ operation: HistoryOperation) {
        self.operation = operation
        if case .set(let value) = operation.action { self.value = value } else { value = nil }
        start = operation.start
        end = operation.end
        acknowledged = operation.outcome == .acknowledged
    }

    /// A write from its parts (the initial absence has no operation).
    init(operation: HistoryOperation?, value: String?, start: Duration, end: Duration, acknowledged: Bool) {
        self.operation = operation
        self.value = value
        self.start = start
        self.end = end
        self.acknowledged = acknowledged
    }
}

/// A way a history broke the fleet's promises.
enum HistoryViolation: Sendable, Equatable {
    /// A read returned `overwritten`'s value although `overwriting`, which started after
    /// `overwritten` ended, was due on the read's node (`bound` after it was acknowledged, or
    /// after an outage) at `due`, before the read began.
    case staleRead(
        read: HistoryOperation, overwritten: CheckedWrite, overwriting: CheckedWrite, due: Duration, bound: Duration)
    /// A read found nothing before the first fault or once the fleet had settled, although the
    /// last acknowledged write due before it (`latest`, at `due`) was a `set` and no removal
    /// could explain it.
    case missAfterSettling(read: HistoryOperation, latest: CheckedWrite, due: Duration)
    /// A read returned a value no `set` of its key wrote before the read ended.
    case unknownValue(read: HistoryOperation)
    /// The nodes' final reads of `key` disagree (node index → value, nil for nothing).
    case split(key: String, values: [Int: String?])
    /// A final read found nothing although every write not followed by another acknowledged
    /// one (`maximal`) was a `set`: an acknowledged write was lost.
    case lostWrite(read: HistoryOperation, maximal: [CheckedWrite])
    /// A final read returned `overwritten`'s value, which `overwriting` (acknowledged, started
    /// after it ended) replaced.
    case staleAtEnd(read: HistoryOperation, overwritten: CheckedWrite, overwriting: CheckedWrite)
    /// A node ended or hung without a fault that explains it.
    case nodeFailure(HistoryNodeFailure)

    /// The time the violation is reported at: its read's start, or the failure's time.
    var time: Duration {
        switch self {
        case .staleRead(let read, _, _, _, _), .missAfterSettling(let read, _, _), .unknownValue(let read),
            .lostWrite(let read, _), .staleAtEnd(let read, _, _):
            read.start
        case .split: .seconds(1_000_000)
        case .nodeFailure(let failure): failure.at
        }
    }

    /// A short name of the kind, for the report's counts.
    var kind: String {
        switch self {
        case .staleRead: "stale reads"
        case .missAfterSettling: "misses outside the faults"
        case .unknownValue: "unknown values"
        case .split: "keys split across nodes"
        case .lostWrite: "lost writes"
        case .staleAtEnd: "stale values at the end"
        case .nodeFailure: "node failures"
        }
    }
}

/// A read that found nothing where the last acknowledged write was a `set`, in a phase where
/// that is allowed: counted and reported, not failed.
struct HistoryMiss: Sendable, Equatable {
    /// The read that found nothing.
    var read: HistoryOperation
    /// The acknowledged `set` the read should have seen (or a newer one), and when it was due.
    var latest: CheckedWrite
    var due: Duration
    /// The phase the read fell in (one that allows misses).
    var phase: HistoryPhase
}

/// What the checker found in one history.
struct HistoryVerdict: Sendable {
    /// Every violation, earliest first.
    var violations: [HistoryViolation] = []
    /// The allowed misses, earliest first.
    var misses: [HistoryMiss] = []
    /// How many client reads were checked (indeterminate ones are not).
    var readsChecked = 0
    /// How many reads returned a value older than the newest acknowledged one, within the bound.
    var readsWithinBound = 0

    /// Whether the history kept every promise.
    var passed: Bool { violations.isEmpty }
}
