import Foundation
import Testing
@testable import ModelStoreCodecs

extension JSONCodecTests {
    /// The JSON decoding and encoding states hand a keyed container's box out again for the next container with the
    /// same key type once the model dropped it; a container still in use (an outer one, or one a model kept) must
    /// never be handed out, and a kept one must keep working as Foundation's does. These call the fast decoder and
    /// encoder directly, so that a wrong answer cannot hide behind the fallback to Foundation.
    @Suite("JSON keyed containers reused across calls")
    struct ContainerReuse {
        private static func fastDecode<Value: Decodable>(_ type: Value.Type, _ json: String) throws -> Value {
            try Array(json.utf8).withUnsafeBytes { try JSONFastDecoder.decode(type, from: $0) }
        }

        private static func fastEncode(_ value: some Encodable) throws -> String? {
            var buffer: [UInt8] = []
            guard try JSONFastEncoder.encode(value, appendingTo: &buffer) else { return nil }
            return String(decoding: buffer, as: UTF8.self)
        }

        /// Keeps its keyed container and reads it later, as a lazily decoding model might.
        final class Keeper: Decodable {
            enum Keys: String, CodingKey { case name, size }
            let container: KeyedDecodingContainer<Keys>

            init(from decoder: any Decoder) throws {
                container = try decoder.container(keyedBy: Keys.self)
            }
        }

        /// Decodes with the same key type as ``Keeper``, so a wrongly reused container would be the kept one.
        struct SameKeys: Decodable, Equatable {
            let name: String
            let size: Int

            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: Keeper.Keys.self)
                name = try container.decode(String.self, forKey: .name)
                size = try container.decode(Int.self, forKey: .size)
            }
        }

        @Test func aKeyedDecodingContainerKeptByAModelKeepsReadingItsOwnDocument() throws {
            var bytes = Array(#"{"name":"kept","size":7}"#.utf8)
            let keeper = try bytes.withUnsafeBytes { try JSONFastDecoder.decode(Keeper.self, from: $0) }
            // The caller's buffer is gone; the container must not read it.
            bytes.withUnsafeMutableBytes { _ = $0.initializeMemory(as: UInt8.self, repeating: 0) }
            for index in 0..<4 {
                let other = try Self.fastDecode(SameKeys.self, #"{"size":\#(index),"name":"other \#(index)"}"#)
                #expect(other.name == "other \(index)" && other.size == index)
            }
            #expect(try keeper.container.decode(String.self, forKey: .name) == "kept")
            #expect(try keeper.container.decode(Int.self, forKey: .size) == 7)
            #expect(keeper.container.allKeys.map(\.stringValue) == ["name", "size"])
            #expect(keeper.container.codingPath.isEmpty)
        }

        /// Keeps its keyed encoding container past its `encode(to:)`.
        final class EncodingKeeper: Encodable, @unchecked Sendable {
            // @unchecked: only the test's thread touches it.
            enum Keys: String, CodingKey { case name, size }
            var container: KeyedEncodingContainer<Keys>?
            let name: String

            init(name: String) {
                self.name = name
            }

            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: Keys.self)
                try container.encode(name, forKey: .name)
                self.container = container
            }
        }

        @Test func aKeyedEncodingContainerKeptByAModelCannotWriteIntoLaterDocuments() throws {
            let keeper = EncodingKeeper(name: "first")
            #expect(try Self.fastEncode(keeper) == #"{"name":"first"}"#)
            for index in 0..<4 {
                // The same key type again: the kept container must not be handed out for these.
                #expect(try Self.fastEncode(EncodingKeeper(name: "n\(index)")) == #"{"name":"n\#(index)"}"#)
            }
            var kept = try #require(keeper.container)
            #expect(throws: (any Error).self) { try kept.encode(3, forKey: .size) }
            #expect(try Self.fastEncode(EncodingKeeper(name: "last")) == #"{"name":"last"}"#)
        }

        /// Nests two key types in turn, each read after its child finished with the other key type. (Arrays hold
        /// the children because structs cannot contain themselves.)
        struct Outer: Codable, Equatable {
            var label: String
            var inner: [Inner]
            var trailer: String
        }

        struct Inner: Codable, Equatable {
            var count: Int
            var outer: [Outer]
            var note: String
        }

        static func alternating(depth: Int) -> Outer {
            var outer = Outer(label: "leaf", inner: [], trailer: "end")
            for level in 0..<depth {
                outer = Outer(
                    label: "label \(level)",
                    inner: [Inner(count: level, outer: [outer, outer], note: "note \(level)")],
                    trailer: "trailer \(level)"
                )
            }
            return outer
        }

        @Test func twoKeyTypesAlternatingWithinAndAcrossCallsStayApart() throws {
            let deep = Self.alternating(depth: 6)
            for _ in 0..<3 {
                let json = try #require(try Self.fastEncode(deep))
                #expect(try JSONDecoder().decode(Outer.self, from: Data(json.utf8)) == deep)
                #expect(try Self.fastDecode(Outer.self, json) == deep)
                // A document of the other key type on its own, between two of the first.
                let inner = Inner(count: 1, outer: [], note: "alone")
                let innerJSON = try #require(try Self.fastEncode(inner))
                #expect(try Self.fastDecode(Inner.self, innerJSON) == inner)
            }
        }

        /// Each link decodes its successor while its own container, of the same key type, is still in use.
        final class Chain: Codable, Equatable {
            let value: Int
            let next: Chain?

            init(value: Int, next: Chain?) {
                self.value = value
                self.next = next
            }

            static func == (lhs: Chain, rhs: Chain) -> Bool {
                lhs.value == rhs.value && lhs.next == rhs.next
            }
        }

        @Test func containersOfOneKeyTypeOpenAtOnceStayApart() throws {
            // Deeper than the 16 containers a state keeps, so some are made without being kept.
            var chain: Chain? = nil
            for value in (0..<40).reversed() {
                chain = Chain(value: value, next: chain)
            }
            let head = try #require(chain)
            for _ in 0..<3 {
                let json = try #require(try Self.fastEncode(head))
                #expect(try Self.fastDecode(Chain.self, json) == head)
            }
        }
    }
}
