import Foundation

extension JSONCodecTests {
    struct Book: Codable, Equatable {
        var title: String
        var author: String
        var price: Double
        var pages: Int
    }

    /// The benchmark's model: a dozen keyed fields, a nested object, a short string array and a long string.
    struct Profile: Codable, Equatable {
        var id: Int
        var name: String
        var email: String
        var joined: Date
        var tags: [String]
        var score: Double
        var book: Book
        var bio: String

        static let sample = Profile(
            id: 1_234_567,
            name: "Ada Lovelace",
            email: "ada.lovelace@example.com",
            joined: Date(timeIntervalSinceReferenceDate: 712_345_678.25),
            tags: ["math", "engines", "poetry"],
            score: 98.625,
            book: Book(title: "Sketch of the Analytical Engine", author: "L. F. Menabrea", price: 24.99, pages: 312),
            bio: String(
                repeating: "Wrote the first published algorithm for a machine; notes ran longer than the paper. ",
                count: 3
            ).prefix(200).description
        )
    }

    /// Every scalar type Codable containers have an overload for, plus the Foundation types JSONDecoder treats
    /// specially.
    struct Scalars: Codable, Equatable {
        var bool = true
        var string = "héllo, 世界 🌍\u{0}tail"
        var double = -1234.5e-7
        var float: Float = 3.25
        var int = Int.min
        var int8 = Int8.min
        var int16 = Int16.max
        var int32 = Int32.min
        var int64 = Int64.max
        var uint = UInt.max
        var uint8 = UInt8.max
        var uint16 = UInt16.max
        var uint32 = UInt32.max
        var uint64 = UInt64.max
        var date = Date(timeIntervalSinceReferenceDate: -123_456.789)
        var data = Data([0, 1, 2, 0xFF, 0])
        var url = URL(string: "https://example.com/a%20b?q=1#frag")!
        var uuid = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
        var decimal = Decimal(string: "-12345.6789")!
    }

    /// An enum with associated values (synthesized Codable: a keyed container with one key).
    enum Shape: Codable, Equatable {
        case circle(radius: Double)
        case label(String, bold: Bool)
        case empty
    }

    indirect enum Node: Codable, Equatable {
        case leaf(Int)
        case branch([Node])

        /// A chain of `depth` branches around a leaf.
        static func chain(depth: Int) -> Node {
            (0..<depth).reduce(.leaf(depth)) { inner, _ in .branch([inner]) }
        }
    }

    enum Suit: String, Codable {
        case hearts, spades, clubs
    }

    enum Rank: Int, Codable {
        case ace = 1
        case queen = 12
        case king = 13
    }

    /// A base class whose subclass stores it through `superEncoder()`/`superDecoder()`.
    class Animal: Codable, Equatable {
        var name: String
        var legs: Int

        init(name: String, legs: Int) {
            self.name = name
            self.legs = legs
        }

        static func == (lhs: Animal, rhs: Animal) -> Bool {
            type(of: lhs) == type(of: rhs) && lhs.name == rhs.name && lhs.legs == rhs.legs && lhs.isEqual(to: rhs)
        }

        func isEqual(to other: Animal) -> Bool { true }
    }

    final class Dog: Animal {
        var breed: String
        var nicknames: [String]

        init(name: String, breed: String, nicknames: [String]) {
            self.breed = breed
            self.nicknames = nicknames
            super.init(name: name, legs: 4)
        }

        private enum CodingKeys: String, CodingKey {
            case breed, nicknames
        }

        required init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            breed = try container.decode(String.self, forKey: .breed)
            nicknames = try container.decode([String].self, forKey: .nicknames)
            try super.init(from: container.superDecoder())
        }

        override func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(breed, forKey: .breed)
            try container.encode(nicknames, forKey: .nicknames)
            try super.encode(to: container.superEncoder())
        }

        override func isEqual(to other: Animal) -> Bool {
            guard let other = other as? Dog else { return false }
            return breed == other.breed && nicknames == other.nicknames
        }
    }

    struct Optionals: Codable, Equatable {
        var plain: Int?
        var double: Int??
        var elements: [String?]
        var nested: [String: Int?]
        var shape: Shape?
    }

    /// Standard library types with their own Codable forms.
    struct Collections: Codable, Equatable, SetMarker {
        var range: Range<Int>
        var closed: ClosedRange<Double>
        var set: Set<String>
        var bytes: [UInt8]
        var intKeys: [Int: String]
        var stringKeys: [String: [Double]]
        var nested: [[Int]]
        var empty: [String]
        var emptyObject: [String: Int]
        var floats: [Float]
        var suits: [Suit]
        var ranks: [Rank: Bool]

        static let sample = Collections(
            range: -3..<7,
            closed: -0.5...2.25,
            set: ["a", "b", "ç"],
            bytes: [0, 1, 255],
            intKeys: [1: "one", -2: "minus two"],
            stringKeys: ["x": [1, 2.5], "ÿ": [], "": [-0.0]],
            nested: [[], [1], [2, 3]],
            empty: [],
            emptyObject: [:],
            floats: [0.1, -0.0, .greatestFiniteMagnitude],
            suits: [.hearts, .clubs],
            ranks: [.ace: true, .king: false]
        )
    }
}
