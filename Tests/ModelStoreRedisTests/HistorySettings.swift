import Foundation

/// How a history run is made: its seed, how long faults are injected and which, the fleet's
/// size, and the bounds reads are held to. The environment can set the first three:
/// `MODELSTORE_HISTORY_SEED` (decimal, or hex with `0x`) replays a run's operations and faults
/// (their timing still varies with the machine), `MODELSTORE_HISTORY_SECONDS` makes the fault
/// phase that many seconds long, for a soak of minutes, and `MODELSTORE_HISTORY_FAULTS` names
/// the kinds of fault to inject (`flushAll,nodePaused`; `none` for a run without faults).
struct HistorySettings: Sendable {
    /// Names the clients' operations and the faults.
    var seed: UInt64
    /// How long faults are injected (the last one may end a little later).
    var faultPhase: Duration
    /// The kinds of fault injected; none: the fault phase is calm.
    var faultKinds = FleetFault.Kind.allCases
    /// How many node processes share Redis.
    var nodes = 3
    /// The clients and their keys.
    var workload = HistoryWorkload()
    /// What reads are held to.
    var bounds = HistoryBounds()
    /// Clients run this long before the first fault (calm reads, held to the calm bound) and
    /// this long after the fleet settled.
    var calmPhase: Duration = .seconds(1)
    /// The time between faults, drawn from this range (milliseconds).
    var faultGap = 200...1_200

    /// The settings the environment asks for; a random seed and 8 s of faults by default, so
    /// the whole test takes about 20 s.
    static func fromEnvironment() -> HistorySettings {
        let environment = ProcessInfo.processInfo.environment
        let seed = environment["MODELSTORE_HISTORY_SEED"].flatMap(parseSeed) ?? UInt64.random(in: .min ... .max)
        let seconds = environment["MODELSTORE_HISTORY_SECONDS"].flatMap { Int($0) }.map { max(1, $0) } ?? 8
        var settings = HistorySettings(seed: seed, faultPhase: .seconds(seconds))
        if let kinds = environment["MODELSTORE_HISTORY_FAULTS"] {
            settings.faultKinds = kinds.split(separator: ",").compactMap { FleetFault.Kind(rawValue: String($0)) }
        }
        return settings
    }

    /// A seed written in decimal or as `0x` hex.
    static func parseSeed(_ text: String) -> UInt64? {
        text.hasPrefix("0x") ? UInt64(text.dropFirst(2), radix: 16) : UInt64(text)
    }

    /// The report's first lines: the seed, how to rerun with it, and what ran.
    var header: [String] {
        [
            "Fleet history: seed \(seed). Rerun with MODELSTORE_HISTORY_SEED=\(seed) swift test --skip-build "
                + "--traits Encryption --filter ModelStoreRedisTests.FleetHistoryTests",
            "\(nodes) nodes, \(workload.keys) keys, \(workload.clients) clients; \(HistoryReport.format(faultPhase)) "
                + "of faults (\(faultKinds.isEmpty ? "none" : faultKinds.map(\.rawValue).joined(separator: ", "))), "
                + "settling \(HistoryReport.format(bounds.settle)); staleness bound "
                + "\(HistoryReport.format(bounds.duringFaults)) while faults are active or the fleet settling, "
                + "\(HistoryReport.format(bounds.calm)) otherwise",
        ]
    }
}
