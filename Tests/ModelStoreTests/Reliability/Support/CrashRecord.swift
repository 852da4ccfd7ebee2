/// The value the crash-test helper writes: its operation number plus filler derived from
/// it, so a record that came back damaged is told apart from an intact one.
///
/// A copy of Tests/ModelStoreTestHelper/CrashRecord.swift (an executable cannot be imported).
struct CrashRecord: Codable, Equatable {
    var op: Int
    var filler: String

    init(op: Int) {
        self.op = op
        let letters = Array("abcdefghijklmnopqrstuvwxyz")
        filler = String((0..<(200 + op % 1800)).map { letters[($0 &* 7 &+ op) % letters.count] })
    }

    var isIntact: Bool { self == CrashRecord(op: op) }
}
