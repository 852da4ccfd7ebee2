/// The value the crash tests write: its operation number plus filler derived from it, so a
/// reader can tell a record that is intact from one that came back damaged.
///
/// (The test target has an identical copy; the helper is an executable and cannot be imported.)
struct CrashRecord: Codable, Equatable, Sendable {
    var op: Int
    var filler: String

    init(op: Int) {
        self.op = op
        let letters = Array("abcdefghijklmnopqrstuvwxyz")
        filler = String((0..<(200 + op % 1800)).map { letters[($0 &* 7 &+ op) % letters.count] })
    }

    var isIntact: Bool { self == CrashRecord(op: op) }
}

/// SplitMix64, the same seeded generator the tests use.
struct HelperGenerator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
