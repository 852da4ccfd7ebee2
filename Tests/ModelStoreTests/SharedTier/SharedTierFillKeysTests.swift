import Testing
@testable import ModelStore
import ModelStoreTestSupport

/// The table a batch of queued fills tells its keys apart with (SharedTierFillKeys.swift): a key
/// is taken once, by the first fill the batch asks about (the last read), and keys are told apart
/// by their bytes, never by their hash alone.
struct SharedTierFillKeysTests {
    /// A fill of `key` in `scope` whose reading kept `hash` (forced here, to make collisions).
    func fill(_ key: String, in scope: Scope, hash: Int) -> SharedTierFills.Fill {
        SharedTierFills.Fill(
            scope: scope, key: key, bytes: [], tags: [], seen: .init(stripe: 0, bulk: 0), keyHash: hash, doubtsBegun: 0)
    }

    @Test func aKeyIsTakenOnceAndEqualHashesOfOtherKeysAreBothTaken() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        let own = store.scope
        let posts = store.collection("posts").scope
        // Every hash equal: only the bytes tell these apart (the same key in two key spaces,
        // keys one byte apart, and a key twice).
        let fills = [
            fill("a", in: own, hash: 7), fill("a", in: posts, hash: 7), fill("b", in: own, hash: 7),
            fill("a", in: own, hash: 7), fill("ab", in: own, hash: 7),
        ]
        var keys = SharedTierFillKeys(count: fills.count)
        // Asked last read first, as a batch does.
        let taken = fills.indices.reversed().filter { keys.take($0, of: fills) }
        #expect(taken == [4, 3, 2, 1])
    }

    @Test func manyDistinctKeysAreAllTakenAndNoneTwice() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        let fills = (0..<1_000).map { fill("k\($0 % 500)", in: store.scope, hash: ($0 % 500).hashValue) }
        var keys = SharedTierFillKeys(count: fills.count)
        let taken = fills.indices.reversed().filter { keys.take($0, of: fills) }
        #expect(taken == Array((500..<1_000).reversed()))
    }
}
