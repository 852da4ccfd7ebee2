import Foundation
import ModelStoreCodecs
import Testing

extension BinaryCodecTests {
    /// Each thread reuses the encoder's and decoder's state from one call to the next; no call may see another's.
    @Suite("BinaryModelCodec state reuse")
    struct StateReuse {
        /// Stores its `inner` value as a nested binary payload, so encoding and decoding it call the codec again on
        /// the same thread while the outer call is still in progress.
        struct Envelope: Codable, Equatable {
            var label: String
            var inner: Profile

            private enum CodingKeys: String, CodingKey {
                case label, inner
            }

            init(label: String, inner: Profile) {
                self.label = label
                self.inner = inner
            }

            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: CodingKeys.self)
                let payload = try container.decode(Data.self, forKey: .inner)
                inner = try codec.decode(Profile.self, from: payload)
                // The outer container must still read its own record after the nested call returned.
                label = try container.decode(String.self, forKey: .label)
            }

            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(codec.encode(inner), forKey: .inner)
                try container.encode(label, forKey: .label)
            }
        }

        @Test func aModelMayCallTheCodecFromInsideItsOwnEncodingAndDecoding() throws {
            let envelope = Envelope(label: "outer", inner: .sample)
            #expect(try roundTrip(envelope) == envelope)
            #expect(try roundTrip([envelope, envelope]) == [envelope, envelope])
        }

        /// Reads `second` before `first`, so its first lookup is not where a model reading in stored order would be.
        struct Reversed: Decodable, Equatable {
            var first: String
            var second: Int

            private enum CodingKeys: String, CodingKey {
                case first, second
            }

            init(first: String, second: Int) {
                self.first = first
                self.second = second
            }

            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: CodingKeys.self)
                second = try container.decode(Int.self, forKey: .second)
                first = try container.decode(String.self, forKey: .first)
            }
        }

        struct Forward: Encodable {
            var first: String
            var second: Int
        }

        @Test func whereOneRecordsEntriesWereDoesNotMisleadTheNextDecode() throws {
            // Both strings start at byte 18. In the first record the entry for "second" follows its nine bytes; in
            // the second, the string holds the bytes of a "second" entry with the value 63 at that very place. A
            // lookup that trusted where the first record's next entry was would read 63 instead of the real 2.
            let lure = "\u{6}second\u{4}~"
            let first = try codec.encode(Forward(first: "xxxxxxxxx", second: 1))
            let second = try codec.encode(Forward(first: "abcdefghi" + lure, second: 2))
            #expect(second[27..<36] == Data(lure.utf8) && first[27] == 6)
            for _ in 0..<2 {
                #expect(try codec.decode(Reversed.self, from: first) == Reversed(first: "xxxxxxxxx", second: 1))
                #expect(try codec.decode(Reversed.self, from: second) == Reversed(first: "abcdefghi" + lure, second: 2))
            }
        }

        @Test func aDecoderKeptByAModelStaysUnusableWhileLaterCallsReuseTheirState() throws {
            final class Smuggler: Decodable {
                let decoder: any Decoder
                init(from decoder: any Decoder) throws {
                    self.decoder = decoder
                }
            }
            let record = try codec.encode(Profile.sample)
            let smuggler = try codec.decode(Smuggler.self, from: record)
            // Later calls on this thread must not hand the kept decoder's state to another payload.
            for _ in 0..<3 {
                #expect(try codec.decode(Profile.self, from: record) == .sample)
            }
            enum Keys: String, CodingKey { case id }
            #expect(throws: DecodingError.self) {
                try smuggler.decoder.container(keyedBy: Keys.self).decode(Int.self, forKey: .id)
            }
        }

        @Test func aKeyedContainerKeptByAModelThrowsOnceItsCallHasReturned() throws {
            final class Smuggler: Decodable {
                enum Keys: String, CodingKey { case id, name }
                let container: KeyedDecodingContainer<Keys>
                init(from decoder: any Decoder) throws {
                    container = try decoder.container(keyedBy: Keys.self)
                    _ = try container.decode(Int.self, forKey: .id)
                }
            }
            let record = try codec.encode(Profile.sample)
            let smuggler = try codec.decode(Smuggler.self, from: record)
            for _ in 0..<3 {
                // The same key type again: the kept container must not be handed out for these.
                _ = try codec.decode(Smuggler.self, from: record)
                #expect(try codec.decode(Profile.self, from: record) == .sample)
            }
            #expect(throws: DecodingError.self) { try smuggler.container.decode(String.self, forKey: .name) }
            #expect(smuggler.container.allKeys.isEmpty)
        }

        @Test func aKeyedContainerKeptPastItsCallStaysSafeWhenItsStateIsGone() throws {
            // The outer call's state is released when it returns, because the nested call put its own state back
            // as the thread's spare first; the container the outer model kept must still only throw. (Its concrete
            // container does not retain its cell; `swift test --sanitize=address` catches a cell freed too early.)
            final class Keeper: Decodable {
                enum Keys: String, CodingKey { case label, inner }
                let container: KeyedDecodingContainer<Keys>
                let inner: Profile
                init(from decoder: any Decoder) throws {
                    container = try decoder.container(keyedBy: Keys.self)
                    inner = try codec.decode(Profile.self, from: container.decode(Data.self, forKey: .inner))
                }
            }
            let record = try codec.encode(Envelope(label: "outer", inner: .sample))
            let keeper = try codec.decode(Keeper.self, from: record)
            #expect(keeper.inner == .sample)
            for _ in 0..<3 {
                _ = try codec.decode(Keeper.self, from: record)
            }
            #expect(throws: DecodingError.self) { try keeper.container.decode(String.self, forKey: .label) }
            #expect(keeper.container.codingPath.isEmpty)
        }

        @Test func keptContainersAreReleasedOnceModelsDropThem() throws {
            // The Keeper pattern above, many times over: each kept container outlives its state, so its cell is
            // held for it until the model drops it. Holding cells for good would grow without bound in a server
            // that decodes such a model on every request.
            final class Keeper: Decodable {
                enum Keys: String, CodingKey { case label, inner }
                let container: KeyedDecodingContainer<Keys>
                init(from decoder: any Decoder) throws {
                    container = try decoder.container(keyedBy: Keys.self)
                    _ = try codec.decode(Profile.self, from: container.decode(Data.self, forKey: .inner))
                }
            }
            let record = try codec.encode(Envelope(label: "outer", inner: .sample))
            var keepers = try (0..<40).map { _ in try codec.decode(Keeper.self, from: record) }
            // Nearly every keeper holds an orphan: a state that arrived with a full container cache (the thread's
            // spare, after other tests) hands out a container that retains its own cell instead.
            let held = BinaryOrphanedContainers.shared.countHeld()
            #expect(held >= 35)
            for keeper in keepers {
                #expect(throws: DecodingError.self) { try keeper.container.decode(String.self, forKey: .label) }
            }
            keepers.removeAll()
            // Other tests running meanwhile keep at most a few of their own.
            #expect(BinaryOrphanedContainers.shared.countHeld() < 20)
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
            var chain: Chain? = nil
            for value in (0..<40).reversed() {
                chain = Chain(value: value, next: chain)
            }
            let head = try #require(chain)
            for _ in 0..<3 {
                #expect(try roundTrip(head) == head)
            }
        }

        @Test func anEncoderKeptByAModelCannotWriteIntoLaterRecords() throws {
            final class Smuggler: Encodable, @unchecked Sendable {
                // @unchecked: only this test's thread touches it.
                var encoder: (any Encoder)?
                func encode(to encoder: any Encoder) throws {
                    self.encoder = encoder
                    var container = encoder.unkeyedContainer()
                    try container.encode(1)
                }
            }
            let smuggler = Smuggler()
            _ = try codec.encode(smuggler)
            let expected = try codec.encode(Profile.sample)
            for _ in 0..<3 {
                #expect(try codec.encode(Profile.sample) == expected)
            }
            var kept = try #require(smuggler.encoder).unkeyedContainer()
            #expect(throws: EncodingError.self) { try kept.encode(2) }
            #expect(try codec.encode(Profile.sample) == expected)
        }

        @Test func aKeyedEncodingContainerKeptByAModelThrowsOnceItsCallHasReturned() throws {
            final class Smuggler: Encodable, @unchecked Sendable {
                // @unchecked: only this test's thread touches it.
                enum Keys: String, CodingKey { case id, name }
                var container: KeyedEncodingContainer<Keys>?
                func encode(to encoder: any Encoder) throws {
                    var container = encoder.container(keyedBy: Keys.self)
                    try container.encode(1, forKey: .id)
                    self.container = container
                }
            }
            let smuggler = Smuggler()
            _ = try codec.encode(smuggler)
            let expected = try codec.encode(Profile.sample)
            for _ in 0..<3 {
                // The same key type again: the kept container must not be handed out for these.
                _ = try codec.encode(Smuggler())
                #expect(try codec.encode(Profile.sample) == expected)
            }
            var kept = try #require(smuggler.container)
            #expect(throws: EncodingError.self) { try kept.encode("late", forKey: .name) }
            var nested = kept.nestedUnkeyedContainer(forKey: .name)
            #expect(throws: EncodingError.self) { try nested.encode(2) }
            #expect(try codec.encode(Profile.sample) == expected)
        }

        /// Reports the coding path it is encoded or decoded at, by throwing it.
        struct PathProbe: Codable {
            init() {}

            init(from decoder: any Decoder) throws {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "probe"))
            }

            func encode(to encoder: any Encoder) throws {
                throw EncodingError.invalidValue(0, .init(codingPath: encoder.codingPath, debugDescription: "probe"))
            }
        }

        /// Synthesized keys around string (dictionary) keys and array indices, five levels deep.
        struct Outer<Leaf: Codable>: Codable {
            struct Inner: Codable {
                var table: [String: [[String: Leaf]]]
            }

            var inner: Inner
        }

        @Test func codingPathsStayRightAcrossCallsThatReuseTheState() throws {
            let expected = ["inner", "table", "outer", "Index 0", "leaf"]
            let probe = Outer(inner: .init(table: ["outer": [["leaf": PathProbe()]]]))
            let stored = try codec.encode(Outer(inner: .init(table: ["outer": [["leaf": 7]]])))
            for _ in 0..<3 {
                #expect(try codec.decode(Profile.self, from: codec.encode(Profile.sample)) == .sample)
                #expect {
                    try codec.encode(probe)
                } throws: { error in
                    guard case EncodingError.invalidValue(_, let context) = error else { return false }
                    return context.codingPath.map(\.stringValue) == expected
                }
                #expect {
                    try codec.decode(Outer<PathProbe>.self, from: stored)
                } throws: { error in
                    guard case DecodingError.dataCorrupted(let context) = error else { return false }
                    return context.codingPath.map(\.stringValue) == expected
                }
            }
        }

        @Test func threadsEncodingAndDecodingAtOnceEachGetTheirOwnState() throws {
            let records = (0..<8).map { id in
                var profile = Profile.sample
                profile.id = id
                profile.tags.append(String(repeating: "t", count: id))
                return profile
            }
            let expected = try records.map { try codec.encode($0) }
            let failures = FailureTally()
            DispatchQueue.concurrentPerform(iterations: 64) { iteration in
                let index = iteration % records.count
                for _ in 0..<50 {
                    var buffer: [UInt8] = []
                    guard (try? codec.encode(records[index], appendingTo: &buffer)) != nil,
                        buffer == Array(expected[index]),
                        let decoded = try? codec.decode(Profile.self, from: expected[index]),
                        decoded == records[index]
                    else {
                        failures.increment()
                        return
                    }
                }
            }
            #expect(failures.value == 0)
        }
    }
}
