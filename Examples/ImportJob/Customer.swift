/// The model the import job stores: one customer per input line.
///
/// NDJSON lines hold these members as a JSON object; CSV files have a header line naming
/// the same columns in any order.
struct Customer: Codable, Sendable, Equatable {
    var id: Int
    var name: String
    var email: String
    var city: String
    /// The sign-up date as written in the input (ISO 8601), kept as text.
    var signedUp: String

    /// The column names, in the order `--generate` writes them.
    static let columns = ["id", "name", "email", "city", "signedUp"]

    /// The key the customer is stored under.
    var key: String { "customer:\(id)" }
}
