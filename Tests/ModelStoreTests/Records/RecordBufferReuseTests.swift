import Foundation
import Testing
@testable import ModelStore
import ModelStoreTestSupport

/// `set` assembles each record in a buffer its thread reuses; these tests make sure a reused
/// buffer never carries bytes from one record into another.
@Suite("Reusing the record buffer between puts")
struct RecordBufferReuseTests {
    /// A model of adjustable size.
    struct Blob: Codable, Equatable {
        var text: String
    }

    /// A model whose encoding writes another record into the same store, on the same thread.
    struct Nesting: Encodable {
        let store: ModelStore
        let innerKey: String
        let inner: Blob
        let text: String

        func encode(to encoder: any Encoder) throws {
            try store.set(inner, forKey: innerKey)
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(text, forKey: .text)
        }

        enum CodingKeys: String, CodingKey { case text }
    }

    /// A model that fails halfway through encoding.
    struct Failing: Encodable {
        struct Refused: Error {}
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(String(repeating: "x", count: 5_000), forKey: .text)
            throw Refused()
        }
        enum CodingKeys: String, CodingKey { case text }
    }

    @Test(
        "Puts of shrinking and growing records, with and without a deadline, each read back exactly",
        arguments: [JSONModelCodec() as any ModelCodec, BinaryModelCodec()])
    func sizesAndHeaders(codec: any ModelCodec) throws {
        let fixture = Fixture()
        let store = try fixture.open(codec: codec)
        // Past the largest buffer a thread keeps (64 KiB), then small, then large again.
        let sizes = [10_000, 3, 200_000, 0, 70_000, 1, 65_000]
        for (index, size) in sizes.enumerated() {
            let blob = Blob(text: String(repeating: Character(UnicodeScalar(97 + index)!), count: size))
            if index.isMultiple(of: 2) {
                try store.set(blob, forKey: "blob-\(index)", expiresAfter: 60)
            } else {
                try store.set(blob, forKey: "blob-\(index)")
            }
        }
        for (index, size) in sizes.enumerated() {
            let entry = try #require(try store.entry(Blob.self, forKey: "blob-\(index)"))
            #expect(entry.value.text.count == size)
            #expect(entry.value.text.allSatisfy { $0 == Character(UnicodeScalar(97 + index)!) })
            #expect((entry.expiresAt != nil) == index.isMultiple(of: 2))
        }
    }

    @Test("A put made while a model is being encoded stores both records intact")
    func nestedPut() throws {
        let store = try Fixture().open(codec: BinaryModelCodec())
        let inner = Blob(text: String(repeating: "i", count: 3_000))
        try store.set(Nesting(store: store, innerKey: "inner", inner: inner, text: "outer"), forKey: "outer")
        #expect(try store.object(Blob.self, forKey: "inner") == inner)
        #expect(try store.object(Blob.self, forKey: "outer") == Blob(text: "outer"))
    }

    @Test("A model that fails to encode writes nothing, and the next put is unaffected")
    func failedEncoding() throws {
        let store = try Fixture().open()
        #expect(errorCase { try store.set(Failing(), forKey: "failing") } == "encodingFailed")
        #expect(try store.contains("failing") == false)
        try store.set(Blob(text: "ok"), forKey: "next")
        #expect(try store.object(Blob.self, forKey: "next") == Blob(text: "ok"))
    }

    @Test("Concurrent puts from many tasks never mix their records")
    func concurrentPuts() async throws {
        let store = try Fixture().open(codec: BinaryModelCodec())
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for number in 0..<500 {
                        let text = String(repeating: String(task), count: 1 + (number * 37 + task * 11) % 900)
                        try store.set(Blob(text: text), forKey: "t\(task)-\(number)")
                    }
                }
            }
            try await group.waitForAll()
        }
        for task in 0..<8 {
            for number in 0..<500 {
                let text = String(repeating: String(task), count: 1 + (number * 37 + task * 11) % 900)
                #expect(try store.object(Blob.self, forKey: "t\(task)-\(number)") == Blob(text: text))
            }
        }
    }
}
