import Foundation

/// The model every contender stores: a user profile of about 410 bytes as JSON, with the
/// kinds of fields real models have (integers, strings, a date, an array, a double and a
/// nested struct).
struct Profile: Codable, Equatable, Sendable {
    var id: Int
    var name: String
    var email: String
    var joined: Date
    var tags: [String]
    var score: Double
    var book: Book
    var bio: String
}

/// A nested model inside ``Profile``.
struct Book: Codable, Equatable, Sendable {
    var title: String
    var author: String
    var price: Double
    var pages: Int
}
