import Foundation
import ModelStoreCodecs
import Testing

extension BinaryCodecTests {
    /// Records outlive the model version that wrote them; these tests pin down what a model may change.
    @Suite("BinaryModelCodec schema evolution")
    struct SchemaEvolution {
        struct UserV1: Codable, Equatable {
            var id: Int
            var name: String
        }

        /// V1 plus an optional field and a field with a default supplied by a custom decoder.
        struct UserV2: Codable, Equatable {
            var id: Int
            var name: String
            var nickname: String?
            var loginCount: Int

            enum CodingKeys: String, CodingKey { case id, name, nickname, loginCount }

            init(id: Int, name: String, nickname: String?, loginCount: Int) {
                self.id = id
                self.name = name
                self.nickname = nickname
                self.loginCount = loginCount
            }

            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: CodingKeys.self)
                id = try container.decode(Int.self, forKey: .id)
                name = try container.decode(String.self, forKey: .name)
                nickname = try container.decodeIfPresent(String.self, forKey: .nickname)
                loginCount = try container.decodeIfPresent(Int.self, forKey: .loginCount) ?? 1
            }
        }

        /// V1 with its fields declared (and therefore written) in the opposite order.
        struct UserReordered: Codable, Equatable {
            var name: String
            var id: Int
        }

        @Test func olderRecordDecodesIntoNewerModelWithDefaults() throws {
            let old = try codec.encode(UserV1(id: 7, name: "Grace"))
            let upgraded = try codec.decode(UserV2.self, from: old)
            #expect(upgraded == UserV2(id: 7, name: "Grace", nickname: nil, loginCount: 1))
        }

        @Test func newerRecordDecodesIntoOlderModelIgnoringUnknownFields() throws {
            struct UserV3: Codable {
                var extra: [String: [Book]] = ["x": [Book(title: "t", author: "a", price: 1, pages: 2)]]
                var id = 7
                var shape = Shape.rectangle(width: 1, height: 2)
                var name = "Grace"
                var blob = Data(repeating: 0xAB, count: 300)
                var nickname: String? = "amazing"
            }
            let newer = try codec.encode(UserV3())
            #expect(try codec.decode(UserV1.self, from: newer) == UserV1(id: 7, name: "Grace"))
            #expect(try codec.decode(UserV2.self, from: newer)
                == UserV2(id: 7, name: "Grace", nickname: "amazing", loginCount: 1))
        }

        @Test func reorderedFieldsDecodeBothWays() throws {
            let reordered = try codec.encode(UserReordered(name: "Grace", id: 7))
            #expect(try codec.decode(UserV1.self, from: reordered) == UserV1(id: 7, name: "Grace"))
            let original = try codec.encode(UserV1(id: 7, name: "Grace"))
            #expect(try codec.decode(UserReordered.self, from: original) == UserReordered(name: "Grace", id: 7))
        }

        @Test func reorderedFieldsInALargeModelDecode() throws {
            // More fields than the linear-scan threshold, read in reverse order, so the key index is used.
            struct Wide: Codable, Equatable {
                var values: [String: Int]
                init(values: [String: Int]) { self.values = values }

                struct Key: CodingKey {
                    var stringValue: String
                    var intValue: Int? { nil }
                    init(stringValue: String) { self.stringValue = stringValue }
                    init?(intValue: Int) { nil }
                }

                init(from decoder: any Decoder) throws {
                    let container = try decoder.container(keyedBy: Key.self)
                    var values: [String: Int] = [:]
                    for index in (0..<40).reversed() {
                        let key = Key(stringValue: "f\(index)")
                        values[key.stringValue] = try container.decodeIfPresent(Int.self, forKey: key)
                    }
                    #expect(try container.decodeIfPresent(Int.self, forKey: Key(stringValue: "missing")) == nil)
                    self.values = values
                }

                func encode(to encoder: any Encoder) throws {
                    var container = encoder.container(keyedBy: Key.self)
                    for index in 0..<40 {
                        try container.encode(index * 3, forKey: Key(stringValue: "f\(index)"))
                    }
                }
            }
            let wide = Wide(values: Dictionary(uniqueKeysWithValues: (0..<40).map { ("f\($0)", $0 * 3) }))
            #expect(try roundTrip(wide) == wide)
        }

        @Test func numericFieldsMayWidenOrChangeSignedness() throws {
            struct Narrow: Codable { var count: UInt8; var ratio: Float; var offset: Int16 }
            struct Wide: Codable, Equatable { var count: Int64; var ratio: Double; var offset: Int }
            struct Unsigned: Codable, Equatable { var count: UInt; var ratio: Double; var offset: UInt64 }
            let narrow = try codec.encode(Narrow(count: 200, ratio: 0.5, offset: 12))
            #expect(try codec.decode(Wide.self, from: narrow) == Wide(count: 200, ratio: 0.5, offset: 12))
            #expect(try codec.decode(Unsigned.self, from: narrow) == Unsigned(count: 200, ratio: 0.5, offset: 12))
        }

        @Test func storedNilAndAbsentKeyBothDecodeAsNil() throws {
            struct ExplicitNil: Encodable {
                enum CodingKeys: String, CodingKey { case id, name, nickname }
                func encode(to encoder: any Encoder) throws {
                    var container = encoder.container(keyedBy: CodingKeys.self)
                    try container.encode(1, forKey: .id)
                    try container.encode("n", forKey: .name)
                    try container.encodeNil(forKey: .nickname)
                }
            }
            let decoded = try codec.decode(UserV2.self, from: codec.encode(ExplicitNil()))
            #expect(decoded.nickname == nil)
        }

        @Test func valuesWrittenThroughTheirCodableFormsStillDecode() throws {
            // A Date stored as a plain number, a UUID and a URL stored as strings (their own Codable forms), and Data
            // stored as an array of bytes must all decode, so records written by other paths stay readable.
            struct Plain: Codable {
                var date: Double = 12.5
                var uuid = "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"
                var url = "https://example.com/x"
                var data: [UInt8] = [1, 2, 3]
            }
            struct Typed: Codable, Equatable {
                var date: Date
                var uuid: UUID
                var url: URL
                var data: Data
            }
            let typed = try codec.decode(Typed.self, from: codec.encode(Plain()))
            #expect(typed == Typed(
                date: Date(timeIntervalSinceReferenceDate: 12.5),
                uuid: UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!,
                url: URL(string: "https://example.com/x")!,
                data: Data([1, 2, 3])
            ))
        }
    }
}
