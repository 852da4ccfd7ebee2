import Foundation
import ModelStore

struct Book: Codable, Equatable, Hashable, Sendable {
    var name: String
    var price: Double
}

struct User: Codable, Equatable, Hashable, Sendable {
    var userName: String
    var book: Book
}

extension User {
    static func sample(_ name: String = "ada") -> User {
        User(userName: name, book: Book(name: "Notes on the Analytical Engine", price: 12.5))
    }
}

/// A model whose encoding fails, to break a batch in the middle.
struct Unencodable: Encodable {
    func encode(to encoder: any Encoder) throws {
        throw EncodingError.invalidValue(0, .init(codingPath: [], debugDescription: "refuses to encode"))
    }
}

/// Extracts the case name of a ModelStoreError so tests can assert on it compactly.
func errorCase(_ body: () throws -> Void) -> String? {
    do {
        try body()
        return nil
    } catch let error as ModelStoreError {
        return String(describing: Mirror(reflecting: error).children.first?.label ?? "\(error)")
    } catch {
        return "unexpected: \(error)"
    }
}
