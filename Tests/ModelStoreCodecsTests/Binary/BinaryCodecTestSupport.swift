import Foundation
import ModelStoreCodecs
import Testing

/// Namespace for the binary codec's tests: the suites are nested in it, so these fixtures (and names such as `Book`
/// or `codec`) cannot collide with other tests in the ModelStoreTests target.
enum BinaryCodecTests {
    struct Book: Codable, Equatable {
        var title: String
        var author: String
        var price: Double
        var pages: Int
    }

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
            tags: ["math", "engines", "poetry", "analysis"],
            score: 98.625,
            book: Book(title: "Sketch of the Analytical Engine", author: "L. F. Menabrea", price: 24.99, pages: 312),
            bio: String(
                repeating: "Wrote the first published algorithm for a machine; notes ran longer than the paper. ",
                count: 3
            ).prefix(200).description
        )
    }

    /// Every scalar type Codable containers have an overload for, plus the Foundation types with fast paths.
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

    /// An enum with associated values, which synthesized Codable stores as nested keyed containers.
    enum Shape: Codable, Equatable {
        case circle(radius: Double)
        case rectangle(width: Int, height: Int)
        case label(String, bold: Bool)
        case empty
    }

    /// A recursive model: its nesting depth is decided by the data.
    indirect enum Node: Codable, Equatable {
        case leaf(Int)
        case branch([Node])

        static func chain(depth: Int) -> Node {
            var node = Node.leaf(0)
            for _ in 0..<depth {
                node = .branch([node])
            }
            return node
        }
    }

    class Animal: Codable, Equatable {
        var name: String

        init(name: String) {
            self.name = name
        }

        static func == (lhs: Animal, rhs: Animal) -> Bool {
            type(of: lhs) == type(of: rhs) && lhs.isEqual(to: rhs)
        }

        func isEqual(to other: Animal) -> Bool {
            name == other.name
        }
    }

    /// A subclass that stores its superclass through `superEncoder()`, as Codable recommends.
    final class Dog: Animal {
        var goodBoy: Bool

        init(name: String, goodBoy: Bool) {
            self.goodBoy = goodBoy
            super.init(name: name)
        }

        private enum CodingKeys: String, CodingKey {
            case goodBoy
        }

        required init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            goodBoy = try container.decode(Bool.self, forKey: .goodBoy)
            try super.init(from: container.superDecoder())
        }

        override func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(goodBoy, forKey: .goodBoy)
            try super.encode(to: container.superEncoder())
        }

        override func isEqual(to other: Animal) -> Bool {
            guard let other = other as? Dog else { return false }
            return super.isEqual(to: other) && goodBoy == other.goodBoy
        }
    }

    /// A subclass that shares one encoder with its superclass, as many hand-written hierarchies do.
    final class Cat: Animal {
        var lives: Int

        init(name: String, lives: Int) {
            self.lives = lives
            super.init(name: name)
        }

        private enum CodingKeys: String, CodingKey {
            case lives
        }

        required init(from decoder: any Decoder) throws {
            lives = try decoder.container(keyedBy: CodingKeys.self).decode(Int.self, forKey: .lives)
            try super.init(from: decoder)
        }

        override func encode(to encoder: any Encoder) throws {
            try super.encode(to: encoder)
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(lives, forKey: .lives)
        }

        override func isEqual(to other: Animal) -> Bool {
            guard let other = other as? Cat else { return false }
            return super.isEqual(to: other) && lives == other.lives
        }
    }

    static let codec = BinaryModelCodec()

    /// Encodes through both entry points, checks they agree, and decodes the result back through both.
    static func roundTrip<Value: Codable & Equatable>(_ value: Value) throws -> Value {
        let data = try codec.encode(value)
        var buffer: [UInt8] = []
        try codec.encode(value, appendingTo: &buffer)
        #expect(Array(data) == buffer, "encode(_:) and encode(_:appendingTo:) must write the same bytes")
        let viaBytes = try buffer.withUnsafeBytes { try codec.decode(Value.self, fromBytes: $0) }
        let viaData = try codec.decode(Value.self, from: data)
        #expect(viaBytes == viaData, "decode(_:from:) and decode(_:fromBytes:) must agree")
        return viaData
    }

    /// The coding path of an error as strings, for comparing with what a user would see.
    static func pathStrings(_ error: DecodingError) -> [String] {
        let context: DecodingError.Context
        switch error {
        case .typeMismatch(_, let value), .valueNotFound(_, let value), .keyNotFound(_, let value),
            .dataCorrupted(let value):
            context = value
        @unknown default:
            return []
        }
        return context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }
    }
}
