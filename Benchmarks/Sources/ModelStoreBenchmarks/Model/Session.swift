import Foundation

/// A login session: a small model, about 130 bytes as a stored record (its JSON and the record's
/// envelope), the size of the records the shared tier's Redis benchmark of issue 37 compared
/// against (132 bytes). ``Profile`` is the larger model (about 420 bytes stored): with both, the
/// fleet benchmark shows how much of a Redis hit is the tier and how much the model's decode.
struct Session: Codable, Equatable, Sendable {
    var id: Int
    var userID: Int
    var expires: Date
    var device: String
    var region: String
    var address: String
}

/// Deterministic sessions for record numbers `0..<count`, under ``ProfileCorpus``'s keys. A small
/// pool built once, as ``ProfileCorpus`` does, so generating a record allocates nothing.
struct SessionCorpus: Sendable {
    private static let devices = ["ios-17.4", "android-14", "web-chrome", "web-safari", "macos-14.4", "ipados-17"]
    private static let regions = ["eu-west-1", "us-east-2", "ap-south-1", "sa-east-1"]
    private let pool: [Session]

    init() {
        var random = SplitMix64(seed: 0x5E55_10A5)
        pool = (0..<64).map { number in
            Session(
                id: number, userID: 1_000_000 + random.index(below: 8_999_999),
                expires: Date(timeIntervalSinceReferenceDate: 800_000_000 + Double(random.index(below: 1_000_000_000)) / 1_000),
                device: Self.devices[random.index(below: Self.devices.count)],
                region: Self.regions[random.index(below: Self.regions.count)],
                address: "203.0.\(random.index(below: 256)).\(random.index(below: 256))")
        }
    }

    /// The session stored as record `number`.
    func session(_ number: Int) -> Session {
        var session = pool[number & 63]
        session.id = number
        return session
    }
}
