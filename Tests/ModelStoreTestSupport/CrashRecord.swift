/// The value the crash-test helper writes: its operation number plus filler derived from
/// it, so a record that came back damaged is told apart from an intact one. The helper
/// writes it and the tests read it back: both take it from here.
public struct CrashRecord: Codable, Equatable, Sendable {
    public var op: Int
    public var filler: String

    public init(op: Int) {
        self.op = op
        let letters = Array("abcdefghijklmnopqrstuvwxyz")
        filler = String((0..<(200 + op % 1800)).map { letters[($0 &* 7 &+ op) % letters.count] })
    }

    public var isIntact: Bool { self == CrashRecord(op: op) }
}
