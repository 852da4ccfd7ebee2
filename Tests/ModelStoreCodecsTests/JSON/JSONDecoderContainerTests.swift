import Foundation
import Testing
@testable import ModelStoreCodecs

extension JSONCodecTests {
    /// Models that watch their containers: every answer a container gives (counts, indices, keys, paths) matches
    /// what Foundation's containers give, including the odd corners of its behaviour.
    @Suite("JSON decoder: containers behave as JSONDecoder's")
    struct Containers {
        /// A key type that accepts any key, for probing.
        struct AnyKey: CodingKey {
            var stringValue: String
            var intValue: Int?

            init(_ string: String) {
                stringValue = string
            }

            init?(stringValue: String) {
                self.stringValue = stringValue
            }

            init?(intValue: Int) {
                stringValue = "\(intValue)"
                self.intValue = intValue
            }
        }

        static func describe(_ path: [any CodingKey]) -> String {
            path.map { "\($0.stringValue)/\($0.intValue.map(String.init) ?? "-")" }.joined(separator: ".")
        }

        /// Walks an unkeyed container the way Foundation documents and implements it.
        struct UnkeyedProbe: Decodable, Equatable {
            var log: [String] = []

            init(from decoder: any Decoder) throws {
                var container = try decoder.unkeyedContainer()
                func note(_ event: String) {
                    log.append(
                        "\(event) count=\(container.count ?? -1) index=\(container.currentIndex)"
                            + " end=\(container.isAtEnd)"
                    )
                }
                note("start")
                note("nil? \(try container.decodeNil())")
                note("int? \(String(describing: try container.decodeIfPresent(Int.self)))")
                note("nil? \(try container.decodeNil())")
                note("string \(try container.decode(String.self))")
                var nested = try container.nestedUnkeyedContainer()
                log.append("nested count=\(nested.count ?? -1) path=\(describe(nested.codingPath))")
                log.append("nested first \(try nested.decode(Double.self))")
                let keyed = try container.nestedContainer(keyedBy: AnyKey.self)
                log.append("keyed path=\(describe(keyed.codingPath)) keys=\(keyed.allKeys.map(\.stringValue).sorted())")
                let superDecoder = try container.superDecoder()
                log.append(
                    "super path=\(describe(superDecoder.codingPath))"
                        + " nil=\(try superDecoder.singleValueContainer().decodeNil())"
                )
                note("at end")
                // Foundation's decodeIfPresent moves on even at the end, so currentIndex passes count.
                note("past end \(String(describing: try container.decodeIfPresent(String.self)))")
                note("past end \(String(describing: try container.decodeIfPresent(Int.self)))")
                note("generic past end \(String(describing: try container.decodeIfPresent(Book.self)))")
            }
        }

        @Test func unkeyedContainerCountsIndicesAndEnd() {
            expectSameAsFoundation(
                UnkeyedProbe.self, json: #"[1, null, "s", [2.5, 3], {"k": 1, "j": null}, null]"#,
                fast: .decodes)
            expectSameAsFoundation(UnkeyedProbe.self, json: #"[null, 7, null, "s", [0], {}, 1]"#, fast: .decodes)
        }

        /// Asks a keyed container everything it can be asked without throwing.
        struct KeyedProbe: Decodable, Equatable {
            var log: [String] = []

            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: AnyKey.self)
                log.append("keys \(container.allKeys.map(\.stringValue).sorted())")
                for name in ["a", "null", "missing", "K", "\u{212A}", "é", ""] {
                    let key = AnyKey(name)
                    let present = container.contains(key)
                    log.append("\(name): contains=\(present)")
                    if present {
                        log.append("\(name): nil=\(try container.decodeNil(forKey: key))")
                    }
                    log.append(
                        "\(name): ifPresent=\(String(describing: try container.decodeIfPresent(Int.self, forKey: key)))"
                    )
                }
                let nested = try container.nestedContainer(keyedBy: AnyKey.self, forKey: AnyKey("nested"))
                log.append(
                    "nested path=\(describe(nested.codingPath)) keys=\(nested.allKeys.map(\.stringValue).sorted())")
                let missing = try container.superDecoder(forKey: AnyKey("missing"))
                log.append(
                    "missing super path=\(describe(missing.codingPath))"
                        + " nil=\(try missing.singleValueContainer().decodeNil())"
                )
                let superDecoder = try container.superDecoder()
                log.append(
                    "super path=\(describe(superDecoder.codingPath))"
                        + " nil=\(try superDecoder.singleValueContainer().decodeNil())"
                )
                log.append("userInfo \(decoder.userInfo.count)")
            }
        }

        @Test func keyedContainerAnswersAsFoundationDoes() {
            expectSameAsFoundation(
                KeyedProbe.self, json: #"{"a": 1, "null": null, "nested": {"x": [], "y": 2}, "": 3, "super": null}"#,
                fast: .decodes)
            expectSameAsFoundation(
                KeyedProbe.self, json: "{\"a\":1,\"\u{212A}\":2,\"e\u{301}\":4,\"nested\":{},\"a\":5,\"super\":{}}",
                fast: .decodes)
            expectSameAsFoundation(KeyedProbe.self, json: #"{"nested": {"\u00e9": 1}, "K": 9}"#, fast: .decodes)
        }

        /// Records the coding path seen at each level of a nested document.
        struct PathProbe: Decodable, Equatable {
            var paths: [String] = []

            private struct Level: Decodable, Equatable {
                var paths: [String]

                init(from decoder: any Decoder) throws {
                    paths = [describe(decoder.codingPath)]
                    if let container = try? decoder.container(keyedBy: AnyKey.self), container.contains(AnyKey("next"))
                    {
                        paths.append(describe(container.codingPath))
                        paths += try container.decode(Level.self, forKey: AnyKey("next")).paths
                    } else if var array = try? decoder.unkeyedContainer() {
                        while !array.isAtEnd {
                            paths += try array.decode(Level.self).paths
                        }
                    }
                }
            }

            init(from decoder: any Decoder) throws {
                paths = try decoder.singleValueContainer().decode(Level.self).paths
            }
        }

        @Test func codingPathsOfNestedValues() {
            // The probe's `try?` on the wrong container kind makes the fast decoder defer; the paths still match.
            expectSameAsFoundation(PathProbe.self, json: #"{"next": {"next": [{"next": [1, {"next": 2}]}, 3]}}"#)
        }

        /// Keeps a container, enters a sibling value, then asks the kept container for its path.
        struct StalePathProbe: Decodable, Equatable {
            var paths: [String] = []

            init(from decoder: any Decoder) throws {
                let root = try decoder.container(keyedBy: AnyKey.self)
                let first = try root.nestedContainer(keyedBy: AnyKey.self, forKey: AnyKey("a"))
                let inner = try first.nestedContainer(keyedBy: AnyKey.self, forKey: AnyKey("x"))
                paths.append(describe(inner.codingPath))
                let second = try root.nestedContainer(keyedBy: AnyKey.self, forKey: AnyKey("b"))
                paths.append(describe(second.codingPath))
                // `first` now enters a child while the recorded path leads to "b".
                let innerAgain = try first.superDecoder(forKey: AnyKey("x"))
                paths.append(describe(innerAgain.codingPath))
                paths.append(describe(inner.codingPath))
                paths.append(describe(first.codingPath))
            }
        }

        @Test func pathsStayRightWhenContainersAreUsedOutOfOrder() {
            // The fast decoder cannot name the path of `first`'s new child (its record says "b"), so it defers.
            expectSameAsFoundation(StalePathProbe.self, json: #"{"a": {"x": {}}, "b": {}}"#, fast: .defers)
        }

        /// A model that recovers from decoding errors, as lenient models do.
        struct Lenient: Decodable, Equatable {
            var count: Int
            var note: String

            enum CodingKeys: String, CodingKey {
                case count, note
            }

            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: CodingKeys.self)
                do {
                    count = try container.decode(Int.self, forKey: .count)
                } catch DecodingError.typeMismatch(_, let context) {
                    count = Int(try container.decode(String.self, forKey: .count)) ?? -1
                    note = "recovered at \(context.codingPath.map(\.stringValue)): \(context.debugDescription)"
                    return
                }
                note = (try? container.decode(String.self, forKey: .note)) ?? "no note"
            }
        }

        @Test func modelsThatCatchErrorsGetFoundationsErrors() {
            // Whatever the fast decoder threw, Foundation redoes the call, so the model sees Foundation's errors.
            expectSameAsFoundation(Lenient.self, json: #"{"count": "12"}"#, fast: .defers)
            expectSameAsFoundation(Lenient.self, json: #"{"count": 12}"#, fast: .defers)
            expectSameAsFoundation(Lenient.self, json: #"{"count": 12, "note": "n"}"#, fast: .decodes)
        }

        /// Keeps its decoder beyond the decode call, as a lazily decoding model might.
        final class Keeper: Decodable {
            let decoder: any Decoder

            init(from decoder: any Decoder) throws {
                self.decoder = decoder
            }
        }

        @Test func aDecoderKeptPastTheCallStillReadsItsValue() throws {
            var bytes = Array(try JSONEncoder().encode(["profile": Profile.sample]))
            let keeper = try bytes.withUnsafeBytes { try JSONFastDecoder.decode(Keeper.self, from: $0) }
            // The caller's buffer is gone (here: overwritten); the kept decoder must not read it.
            bytes.withUnsafeMutableBytes { _ = $0.initializeMemory(as: UInt8.self, repeating: 0) }
            let container = try keeper.decoder.container(keyedBy: AnyKey.self)
            #expect(try container.decode(Profile.self, forKey: AnyKey("profile")) == Profile.sample)
        }
    }
}
