import Foundation
import Testing
@testable import ModelStoreCodecs
import ModelStoreTestSupport

extension JSONCodecTests {
    /// `encode(_:then:appendingTo:)` against models that misbehave: whatever they do, the pair must give exactly what
    /// two separate `encode(_:appendingTo:)` calls give — the same bytes, the same middle, the same error and a
    /// buffer left as it was when it throws.
    @Suite("JSON encoder: two values in one run, with models that misbehave")
    struct EncoderPairMisbehavingModels {
        /// What a call gave: the buffer and middle, or the error's type and description.
        enum Outcome: Equatable {
            case wrote([UInt8], middle: Int)
            case threw(String, buffer: [UInt8])

            /// The same outcome with each value's objects in a canonical member order: where Foundation writes a
            /// value, its order comes from a `Dictionary` and can differ from one call to the next.
            var canonical: Outcome {
                guard case .wrote(let bytes, let middle) = self else { return self }
                let start = EncoderPairMisbehavingModels.prefix.count
                return .wrote(
                    Array(bytes[..<start]) + JSONCodecTests.canonical(Array(bytes[start..<middle]))
                        + JSONCodecTests.canonical(Array(bytes[middle...])),
                    middle: middle)
            }
        }

        static let prefix: [UInt8] = [1, 2, 3]

        static func describe(_ error: any Error) -> String {
            "\(type(of: error)): \(error)"
        }

        static func pair<A: Encodable, B: Encodable>(_ first: A, _ second: B) -> Outcome {
            var buffer = prefix
            do {
                let middle = try JSONCodecTests.codec.encode(first, then: second, appendingTo: &buffer)
                return .wrote(buffer, middle: middle)
            } catch {
                return .threw(describe(error), buffer: buffer)
            }
        }

        /// Two separate calls; the buffer is put back as it was if either throws, as the pair promises.
        static func separately<A: Encodable, B: Encodable>(_ first: A, _ second: B) -> Outcome {
            var buffer = prefix
            do {
                try JSONCodecTests.codec.encode(first, appendingTo: &buffer)
                let middle = buffer.count
                try JSONCodecTests.codec.encode(second, appendingTo: &buffer)
                return .wrote(buffer, middle: middle)
            } catch {
                return .threw(describe(error), buffer: prefix)
            }
        }

        static func expectPairMatchesSeparateCalls<A: Encodable, B: Encodable>(
            _ first: A, _ second: B, sourceLocation: SourceLocation = #_sourceLocation
        ) {
            let expected = separately(first, second)
            let actual = pair(first, second)
            #expect(actual == expected || actual.canonical == expected.canonical, sourceLocation: sourceLocation)
        }

        enum Keys: String, CodingKey { case a, b }

        /// Where a model leaves its encoder and container for another model (or the test) to use later.
        // Unchecked: each test uses its keeper on one thread only (the encodes it runs are synchronous).
        final class Kept: @unchecked Sendable {
            var encoder: (any Encoder)?
            var container: KeyedEncodingContainer<Keys>?
            var unkeyed: (any UnkeyedEncodingContainer)?
        }

        /// Keeps its encoder and its containers past its own `encode(to:)`.
        struct Keeper: Encodable {
            let kept: Kept
            func encode(to encoder: any Encoder) throws {
                kept.encoder = encoder
                var container = encoder.container(keyedBy: Keys.self)
                try container.encode("kept", forKey: .a)
                kept.unkeyed = container.nestedUnkeyedContainer(forKey: .b)
                try kept.unkeyed?.encode(1)
                kept.container = container
            }
        }

        /// Writes through what a ``Keeper`` kept (ignoring the errors it gets), then writes a value of its own.
        struct UsesKept: Encodable {
            let kept: Kept
            func encode(to encoder: any Encoder) throws {
                if var container = kept.container { try? container.encode(9, forKey: .b) }
                try? kept.unkeyed?.encode(2)
                if let old = kept.encoder {
                    var single = old.singleValueContainer()
                    try? single.encode(5)
                }
                var own = encoder.container(keyedBy: Keys.self)
                try own.encode("own", forKey: .a)
            }
        }

        @Test func aSecondValueWritingThroughTheFirstOnesKeptEncoderAndContainers() {
            // Each run needs its own keeper: a kept container from the separate calls must not be the pair's.
            let expected = Self.separately(Keeper(kept: Kept()), UsesKept(kept: Kept()))
            let kept = Kept()
            #expect(Self.pair(Keeper(kept: kept), UsesKept(kept: kept)) == expected)
            let keptSeparately = Kept()
            #expect(Self.separately(Keeper(kept: keptSeparately), UsesKept(kept: keptSeparately)) == expected)
        }

        @Test func whatTheFirstValueKeptIsUsedAfterTheCallWithoutDisturbingTheNextOne() throws {
            let kept = Kept()
            let first = Self.pair(Keeper(kept: kept), Profile.sample)
            guard case .wrote(let bytes, let middle) = first else {
                Issue.record("the pair threw: \(first)")
                return
            }
            #expect(String(decoding: bytes[Self.prefix.count..<middle], as: UTF8.self) == #"{"a":"kept","b":[1]}"#)
            // Writes after the call go nowhere, and must not reach this thread's next call.
            try? kept.container?.encode(7, forKey: .b)
            try? kept.unkeyed?.encode(3)
            if let encoder = kept.encoder {
                var single = encoder.singleValueContainer()
                try? single.encode("late")
                var late = encoder.container(keyedBy: Keys.self)
                try? late.encode("late", forKey: .a)
            }
            Self.expectPairMatchesSeparateCalls(["x"], Profile.sample)
            Self.expectPairMatchesSeparateCalls(Profile.sample, EncoderPair.info)
        }

        @Test func scalarsEmptyContainersAndNullFirst() {
            Self.expectPairMatchesSeparateCalls(1, Profile.sample)
            Self.expectPairMatchesSeparateCalls("", Profile.sample)
            Self.expectPairMatchesSeparateCalls([Int](), Profile.sample)
            Self.expectPairMatchesSeparateCalls([String: Int](), [Int]())
            Self.expectPairMatchesSeparateCalls(Int?.none, "/\u{0}")
            Self.expectPairMatchesSeparateCalls(Date(timeIntervalSinceReferenceDate: 1.5), Data([1, 2, 3]))
            Self.expectPairMatchesSeparateCalls(Decimal(string: "1.25")!, URL(string: "https://a/b")!)
            Self.expectPairMatchesSeparateCalls(Profile.sample, 0)
        }

        /// Encodes nothing at all: Foundation refuses it at the top level.
        struct EncodesNothing: Encodable {
            func encode(to encoder: any Encoder) throws {}
        }

        /// Asks for a super encoder, which the fast encoder leaves to Foundation.
        struct UsesSuperEncoder: Encodable {
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: Keys.self)
                try container.encode(1, forKey: .a)
                var single = container.superEncoder().singleValueContainer()
                try single.encode("super")
            }
        }

        @Test func aFirstValueLeftToFoundationWithASecondThatThrowsOrNestsTooDeep() {
            let giveUps: [any Encodable] = [
                StateReuse.DuplicateKey(), UsesSuperEncoder(), [Double.nan], EncodesNothing(),
            ]
            let seconds: [any Encodable] = [
                EncoderEngine.Failing(), Nesting.NestedArrays(depth: 600), Nesting.Wrapper(depth: 600),
                Nesting.Chain.deep(6_000), Nesting.NestedArrays(depth: 511), EncodesNothing(), Profile.sample,
            ]
            for first in giveUps {
                for second in seconds {
                    Self.expectPairMatchesSeparateCalls(first, second)
                    Self.expectPairMatchesSeparateCalls(second, first)
                }
            }
        }

        @Test(.long) func nestingTooDeepInEitherValueThrowsAndLeavesTheBuffer() {
            let deep: [any Encodable] = [
                Nesting.NestedArrays(depth: 513), Nesting.Wrapper(depth: 513), Nesting.Chain.deep(513),
                Nesting.LeftToFoundation(),
            ]
            for value in deep {
                for other in [EncoderPair.info as any Encodable, Nesting.NestedArrays(depth: 400), "s"] {
                    for outcome in [Self.pair(value, other), Self.pair(other, value)] {
                        guard case .threw(let description, let buffer) = outcome else {
                            Issue.record("expected an error, got \(outcome)")
                            continue
                        }
                        #expect(description.hasPrefix("EncodingError"))
                        #expect(buffer == Self.prefix)
                    }
                    Self.expectPairMatchesSeparateCalls(value, other)
                    Self.expectPairMatchesSeparateCalls(other, value)
                }
            }
        }

        /// Calls the codec (single and pair) from inside its own `encode(to:)`, on the same thread.
        struct CallsTheCodec: Encodable {
            let label: String
            func encode(to encoder: any Encoder) throws {
                var container = encoder.unkeyedContainer()
                try container.encode(label)
                let inner = try JSONCodecTests.codec.encode(Profile.sample)
                try container.encode(String(decoding: inner, as: UTF8.self))
                var both: [UInt8] = []
                let middle = try JSONCodecTests.codec.encode(EncoderPair.info, then: Profile.sample, appendingTo: &both)
                try container.encode(middle)
                try container.encode(both)
                try container.encode(label + "/end")
            }
        }

        @Test func aValueThatCallsTheCodecWhileItIsEncoded() {
            Self.expectPairMatchesSeparateCalls(CallsTheCodec(label: "first"), Profile.sample)
            Self.expectPairMatchesSeparateCalls(Profile.sample, CallsTheCodec(label: "second"))
            Self.expectPairMatchesSeparateCalls(CallsTheCodec(label: "a"), CallsTheCodec(label: "b"))
            Self.expectPairMatchesSeparateCalls(CallsTheCodec(label: "a"), EncoderEngine.Failing())
        }

        /// A codec of a user's own that streams into the buffer and so leaves part of a value there when it throws.
        struct StreamingCodec: ModelCodec {
            var identifier: ModelCodecIdentifier { .custom(7) }
            func encode<Value: Encodable>(_ value: Value) throws -> Data { try JSONEncoder().encode(value) }
            func decode<Value: Decodable>(_ type: Value.Type, from data: Data) throws -> Value {
                try JSONDecoder().decode(type, from: data)
            }
            func encode<Value: Encodable>(_ value: Value, appendingTo buffer: inout [UInt8]) throws {
                buffer.append(UInt8(ascii: "["))
                buffer += try encode(value)
                buffer.append(UInt8(ascii: "]"))
            }
        }

        @Test func theDefaultPairLeavesTheBufferAsItWasWhicheverValueThrows() throws {
            for (first, second) in [(Double.nan, 1.0), (1.0, Double.nan), (Double.nan, Double.nan)] {
                var buffer = Self.prefix
                #expect(throws: EncodingError.self) {
                    _ = try StreamingCodec().encode(first, then: second, appendingTo: &buffer)
                }
                #expect(buffer == Self.prefix)
            }
            var buffer = Self.prefix
            let middle = try StreamingCodec().encode(1, then: "a", appendingTo: &buffer)
            #expect(middle == Self.prefix.count + 3)
            #expect(buffer == Self.prefix + Array(#"[1]["a"]"#.utf8))
        }

        @Test func randomPairsOfStringsMatchSeparateCalls() {
            var random = SeededGenerator(seed: 0x5EED_2000)
            for length in stride(from: 0, through: 300, by: 7) {
                let first = EncoderStringEdges.randomString(length: length, using: &random)
                let second = EncoderStringEdges.randomString(length: 300 - length, using: &random)
                Self.expectPairMatchesSeparateCalls(first, [second: [first]])
                Self.expectPairMatchesSeparateCalls([first: second], second)
            }
        }
    }
}
