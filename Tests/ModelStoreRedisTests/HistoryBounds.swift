/// How long the fleet may take to show a write, in each phase of a history run; the checker
/// holds every read to these.
///
/// The README's consistency table promises about 500 ms after a FLUSHALL or a restart of
/// Redis (the reader's periodic check) and a few milliseconds otherwise; the values here are
/// looser on purpose while faults come one after another. When the README states measured
/// bounds for each fault, set them here (or per fault, if the checker learns which fault a
/// read follows).
struct HistoryBounds: Sendable, Equatable {
    /// How stale a read may be from the first fault until `settle` after the last one ended:
    /// a write acknowledged more than this long before a read began must be seen by it.
    var duringFaults: Duration = .seconds(1)
    /// How stale a read may be before the first fault and once the fleet has settled.
    var calm: Duration = .milliseconds(500)
    /// How long after the last fault ended the fleet may still miss acknowledged writes
    /// (a nil read where a value was acknowledged) and still use the looser bound.
    var settle: Duration = .seconds(5)

    /// The phase of a run a read that started at `start` falls in, given when the faults
    /// began and ended (nil: the run had none).
    func phase(of start: Duration, faults: ClosedRange<Duration>?) -> HistoryPhase {
        guard let faults, start >= faults.lowerBound else { return .calm }
        return start < faults.upperBound + settle ? .faulty : .settled
    }

    /// How stale a read in `phase` may be.
    func staleness(in phase: HistoryPhase) -> Duration {
        phase == .faulty ? duringFaults : calm
    }
}

/// Where in a run a read fell, which decides its bound and whether a miss is allowed.
enum HistoryPhase: String, Sendable, CaseIterable {
    /// Before the first fault (or a run without faults): calm bound; misses are failures.
    case calm
    /// From the first fault until the settling time after the last: looser bound, misses counted.
    case faulty
    /// After the fleet settled: calm bound; misses are failures.
    case settled

    /// Whether a nil read of an acknowledged value is allowed (reported, not failed) here.
    var allowsMisses: Bool { self == .faulty }
}
