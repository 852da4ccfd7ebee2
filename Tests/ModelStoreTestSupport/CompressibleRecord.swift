/// The value the compression crash test's helper writes: repetitive enough that a trained
/// dictionary compresses it, and a pure function of its number, so the test knows what each
/// key holds. The helper writes it and the test reads it back: both take it from here.
public struct CompressibleRecord: Codable, Equatable, Sendable {
    public var number: Int
    public var owner: String
    public var notes: String

    public init(number: Int) {
        self.number = number
        owner = "owner-\(number % 13)@example.com"
        notes = (0..<8).map { "note \($0) about record \(number % 97) kept safe and fast" }.joined(separator: "; ")
    }
}
