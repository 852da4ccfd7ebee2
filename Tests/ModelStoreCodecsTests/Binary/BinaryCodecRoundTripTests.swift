import Foundation
import ModelStoreCodecs
import Testing

extension BinaryCodecTests {
    @Suite("BinaryModelCodec round trips")
    struct RoundTrips {
        @Test func identifierIsBinary() {
            #expect(codec.identifier == .binary)
        }

        @Test func profileRoundTrips() throws {
            #expect(try roundTrip(Profile.sample) == Profile.sample)
        }

        @Test func everyScalarTypeRoundTripsAtItsExtremes() throws {
            #expect(try roundTrip(Scalars()) == Scalars())
            var small = Scalars()
            small.int = Int.max
            small.int8 = Int8.max
            small.int16 = Int16.min
            small.int32 = Int32.max
            small.int64 = Int64.min
            small.uint = 0
            small.uint8 = 0
            small.uint16 = 0
            small.uint32 = 0
            small.uint64 = 0
            small.bool = false
            small.string = ""
            small.data = Data()
            #expect(try roundTrip(small) == small)
        }

        @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
        @Test func wideIntegersRoundTripWithinSixtyFourBits() throws {
            struct Wide: Codable, Equatable { var signed: Int128; var unsigned: UInt128; var list: [Int128] }
            let wide = Wide(signed: Int128(Int64.min), unsigned: UInt128(UInt64.max), list: [-1, 0, 1])
            #expect(try roundTrip(wide) == wide)
            #expect(try roundTrip(Int128(-7)) == -7)
            // Beyond 64 bits the format has no representation: encoding says so instead of truncating.
            #expect(throws: EncodingError.self) { try codec.encode(Wide(signed: .max, unsigned: 0, list: [])) }
            #expect(throws: EncodingError.self) { try codec.encode([UInt128.max]) }
        }

        /// Int128 values between Int64.max + 1 and UInt64.max fit the format's unsigned integers; they once passed the
        /// 64-bit check and were then written as signed varints, reading back negative.
        @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
        @Test(arguments: [
            Int128(Int64.max) + 1, Int128(UInt64.max), Int128(UInt64.max) - 1, Int128(Int64.max), Int128(Int64.min),
        ])
        func int128AboveInt64RoundTripsExactlyInEveryContainer(_ value: Int128) throws {
            struct Keyed: Codable, Equatable { var value: Int128; var list: [Int128] }
            let keyed = Keyed(value: value, list: [value, -1, value])
            #expect(try roundTrip(keyed) == keyed)
            #expect(try roundTrip(value) == value)
            #expect(try roundTrip([value]) == [value])
            #expect(try roundTrip(UInt128(exactly: value) ?? 0) == UInt128(exactly: value) ?? 0)
        }

        /// Values that fit neither Int64 nor UInt64 throw from every container kind instead of being truncated.
        @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
        @Test(arguments: [Int128(UInt64.max) + 1, Int128(Int64.min) - 1, Int128.max, Int128.min])
        func int128Beyond64BitsThrowsInEveryContainer(_ value: Int128) {
            struct Keyed: Codable { var value: Int128 }
            #expect(throws: EncodingError.self) { try codec.encode(Keyed(value: value)) }
            #expect(throws: EncodingError.self) { try codec.encode([value]) }
            #expect(throws: EncodingError.self) { try codec.encode(value) }
            if let unsigned = UInt128(exactly: value) {
                #expect(throws: EncodingError.self) { try codec.encode([unsigned]) }
                #expect(throws: EncodingError.self) { try codec.encode(unsigned) }
            }
        }

        @Test(arguments: [
            Double.nan, -Double.nan, Double(bitPattern: 0x7FF0_0000_0000_0001),
            Double(bitPattern: 0xFFF8_DEAD_BEEF_0001),
            -0.0, 0.0, .infinity, -.infinity, .leastNonzeroMagnitude, .greatestFiniteMagnitude, .pi,
        ])
        func doublesKeepTheirExactBits(_ value: Double) throws {
            let data = try codec.encode([value])
            let decoded = try codec.decode([Double].self, from: data)
            #expect(decoded.map(\.bitPattern) == [value.bitPattern])
            // And as a single top-level value, through the generic path.
            #expect(try codec.decode(Double.self, from: codec.encode(value)).bitPattern == value.bitPattern)
        }

        @Test(arguments: [
            Float.nan, Float(bitPattern: 0x7FC0_1234), -0.0, .infinity, -.infinity, .leastNonzeroMagnitude,
            .greatestFiniteMagnitude,
        ])
        func floatsKeepTheirExactBits(_ value: Float) throws {
            #expect(try codec.decode(Float.self, from: codec.encode(value)).bitPattern == value.bitPattern)
            #expect(try codec.decode([Float].self, from: codec.encode([value])).map(\.bitPattern) == [value.bitPattern])
        }

        @Test func datesKeepTheirExactTimeInterval() throws {
            let dates = [
                Date(timeIntervalSinceReferenceDate: 0.1 + 0.2),
                Date(timeIntervalSinceReferenceDate: -1e-300),
                Date.distantPast,
                Date.distantFuture,
            ]
            let decoded = try roundTrip(dates)
            #expect(decoded.map(\.timeIntervalSinceReferenceDate.bitPattern)
                == dates.map(\.timeIntervalSinceReferenceDate.bitPattern))
        }

        @Test func stringsKeepAnyUnicodeAndEmbeddedNUL() throws {
            let strings = [
                "", "\u{0}", "a\u{0}b\u{0}", "é", "e\u{301}", "👩‍👩‍👧‍👦", "\u{FEFF}bom", "日本語のテキスト",
                String(repeating: "long ", count: 5_000), "\u{10FFFF}",
            ]
            let decoded = try roundTrip(strings)
            // Compare the stored scalars, not String equality, which would accept canonically equivalent forms.
            #expect(decoded.map { Array($0.unicodeScalars) } == strings.map { Array($0.unicodeScalars) })
        }

        @Test func optionalsAndNestedOptionalsRoundTripLikeJSON() throws {
            struct Optionals: Codable, Equatable {
                var present: Int? = 5
                var absent: String?
                var nested: Int?? = .some(.some(3))
                var nestedNone: Int?? = .none
                var list: [Int?] = [1, nil, 3]
                var nestedList: [Int??] = [.some(.some(1)), .none]
            }
            #expect(try roundTrip(Optionals()) == Optionals())
            #expect(try roundTrip(Int?.none) == nil)
            #expect(try roundTrip(Int?.some(7)) == 7)
            // `.some(nil)` collapses to nil, exactly as JSONEncoder/JSONDecoder do; documented in the format.
            let collapsed = try codec.decode(Int??.self, from: codec.encode(Int??.some(.none)))
            let json = try JSONDecoder().decode([Int??].self, from: JSONEncoder().encode([Int??.some(.none)]))
            #expect(collapsed == nil)
            #expect(json == [nil])
        }

        @Test func enumsWithAssociatedValuesRoundTrip() throws {
            let shapes: [Shape] = [
                .circle(radius: 2.5), .rectangle(width: 3, height: -4), .label("hi\u{0}", bold: true), .empty,
            ]
            #expect(try roundTrip(shapes) == shapes)
        }

        @Test func collectionsRoundTrip() throws {
            struct Collections: Codable, Equatable {
                var strings: [String: Int] = ["a": 1, "": 0, "ü": -1]
                var ints: [Int: String] = [-5: "minus five", 0: "zero", 1 << 40: "big"]
                var uuidKeys: [UUID: Bool] = [UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!: true]
                var sets: Set<String> = ["x", "y"]
                var matrix: [[Double]] = [[1, 2], [], [3]]
                var bytes: [UInt8] = [0, 255, 128]
                var emptyArray: [Book] = []
                var emptyDictionary: [String: Book] = [:]
                var books: [String: Book] = ["b": Book(title: "T", author: "A", price: 1, pages: 2)]
            }
            #expect(try roundTrip(Collections()) == Collections())
        }

        @Test func largeDictionariesAreFoundByKey() throws {
            // More entries than the linear-scan threshold, so lookups go through the hash index.
            let dictionary = Dictionary(uniqueKeysWithValues: (0..<2_000).map { ("key\($0)", $0) })
            #expect(try roundTrip(dictionary) == dictionary)
        }

        @Test func emptyValuesRoundTrip() throws {
            struct Empty: Codable, Equatable {}
            struct Silent: Codable, Equatable {
                init() {}
                init(from decoder: any Decoder) throws {}
                func encode(to encoder: any Encoder) throws {}
            }
            #expect(try roundTrip(Empty()) == Empty())
            #expect(try roundTrip(Silent()) == Silent())
            #expect(try roundTrip([Silent(), Silent()]) == [Silent(), Silent()])
            #expect(try roundTrip([String]()) == [])
            #expect(try roundTrip([String: Int]()) == [:])
            #expect(try roundTrip("") == "")
            #expect(try roundTrip(Data()) == Data())
        }

        @Test func topLevelSingleValuesRoundTrip() throws {
            #expect(try roundTrip(42) == 42)
            #expect(try roundTrip("top") == "top")
            #expect(try roundTrip(true) == true)
            #expect(try roundTrip(Scalars().url) == Scalars().url)
            #expect(try roundTrip(Scalars().uuid) == Scalars().uuid)
            #expect(try roundTrip(Scalars().decimal) == Scalars().decimal)
            #expect(try roundTrip(Shape.rectangle(width: 1, height: 2)) == .rectangle(width: 1, height: 2))
        }

        @Test func nestingUpToTheLimitRoundTrips() throws {
            // Each Node level is three containers (the enum, its case's payload, the array), plus two for the leaf:
            // 170 levels are exactly the 512 containers the format allows, and one more level is refused.
            let deepest = Node.chain(depth: 170)
            #expect(try roundTrip(deepest) == deepest)
            #expect {
                try codec.encode(Node.chain(depth: 171))
            } throws: { error in
                guard case EncodingError.invalidValue(_, let context) = error else { return false }
                return context.debugDescription.contains("deeper than 512")
            }
        }

        @Test func classHierarchiesRoundTripThroughSuperEncoderAndSharedEncoders() throws {
            let dog = Dog(name: "Rex", goodBoy: true)
            let decodedDog = try codec.decode(Dog.self, from: codec.encode(dog))
            #expect(decodedDog == dog)
            let cat = Cat(name: "Tom", lives: 9)
            let decodedCat = try codec.decode(Cat.self, from: codec.encode(cat))
            #expect(decodedCat == cat)
        }

        @Test func handWrittenNestedContainersRoundTrip() throws {
            struct Manual: Codable, Equatable {
                var x: Int
                var list: [String]
                var inner: Double

                enum Keys: String, CodingKey { case meta, list, inner, superValue }
                enum MetaKeys: String, CodingKey { case x }

                init(x: Int, list: [String], inner: Double) {
                    self.x = x
                    self.list = list
                    self.inner = inner
                }

                init(from decoder: any Decoder) throws {
                    let container = try decoder.container(keyedBy: Keys.self)
                    // Read in another order than written, and the nested container after its parent moved on.
                    var list = try container.nestedUnkeyedContainer(forKey: .list)
                    let meta = try container.nestedContainer(keyedBy: MetaKeys.self, forKey: .meta)
                    inner = try container.superDecoder(forKey: .superValue).singleValueContainer().decode(Double.self)
                    x = try meta.decode(Int.self, forKey: .x)
                    var strings: [String] = []
                    while !list.isAtEnd {
                        var pair = try list.nestedUnkeyedContainer()
                        strings.append(try pair.decode(String.self))
                    }
                    self.list = strings
                }

                func encode(to encoder: any Encoder) throws {
                    var container = encoder.container(keyedBy: Keys.self)
                    var meta = container.nestedContainer(keyedBy: MetaKeys.self, forKey: .meta)
                    try meta.encode(x, forKey: .x)
                    var list = container.nestedUnkeyedContainer(forKey: .list)
                    for string in self.list {
                        var pair = list.nestedUnkeyedContainer()
                        try pair.encode(string)
                    }
                    var single = container.superEncoder(forKey: .superValue).singleValueContainer()
                    try single.encode(inner)
                }
            }
            let value = Manual(x: -9, list: ["a", "b"], inner: 0.5)
            #expect(try roundTrip(value) == value)
        }

        @Test func superEncodersInUnkeyedContainersAndUnusedOnesRoundTrip() throws {
            struct Wrapper: Codable, Equatable {
                var book: Book
                var hadNothing: Bool

                init(book: Book) {
                    self.book = book
                    hadNothing = true
                }

                init(from decoder: any Decoder) throws {
                    var container = try decoder.unkeyedContainer()
                    book = try Book(from: container.superDecoder())
                    // A super encoder that was never used still leaves an element behind, holding nil.
                    hadNothing = try container.superDecoder().singleValueContainer().decodeNil()
                    #expect(container.isAtEnd)
                }

                func encode(to encoder: any Encoder) throws {
                    var container = encoder.unkeyedContainer()
                    try book.encode(to: container.superEncoder())
                    _ = container.superEncoder()
                }
            }
            let wrapper = Wrapper(book: Profile.sample.book)
            #expect(try roundTrip(wrapper) == wrapper)
        }

        @Test func oneCodecServesManyTasksAtOnce() async throws {
            try await withThrowingTaskGroup(of: Bool.self) { group in
                for id in 0..<64 {
                    group.addTask {
                        var profile = Profile.sample
                        profile.id = id
                        profile.tags.append("task \(id)")
                        return try codec.decode(Profile.self, from: codec.encode(profile)) == profile
                    }
                }
                for try await matched in group {
                    #expect(matched)
                }
            }
        }
    }
}
