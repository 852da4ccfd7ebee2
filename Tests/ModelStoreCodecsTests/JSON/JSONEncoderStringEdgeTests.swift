import CModelStoreJSON
import Foundation
import Testing
@testable import ModelStoreCodecs
import ModelStoreTestSupport

extension JSONCodecTests {
    /// Strings built to hit the edges of the encoder's byte writer and its vector scan: every length up to 300 bytes,
    /// bytes to escape at block boundaries, long runs that expand sixfold, many threads at once. Each result must be
    /// Foundation's bytes exactly.
    @Suite("JSON encoder: strings at the edges of its buffer and its vector scan")
    struct EncoderStringEdges {
        /// Pieces of text whose UTF-8 is 1 to 4 bytes: bytes Foundation escapes (every control character, `"`, `\`,
        /// `/`), bytes it does not (DEL, letters) and multi-byte characters, a combining mark among them.
        static let pieces: [String] = (0..<0x20).map { String(UnicodeScalar(UInt8($0))) }
            + ["\"", "\\", "/", "\u{7F}", "a", "Z", " ", "é", "\u{301}", "中", "\u{2028}", "🙂", "\u{10FFFF}"]

        /// A string of exactly `length` UTF-8 bytes made of random pieces.
        static func randomString(length: Int, using random: inout SeededGenerator) -> String {
            var text = ""
            var remaining = length
            while remaining > 0 {
                let piece = pieces.randomElement(using: &random)!
                guard piece.utf8.count <= remaining else { continue }
                text += piece
                remaining -= piece.utf8.count
            }
            // `+=` may merge pieces into one Character but never changes the UTF-8.
            return text
        }

        /// Expects ModelStore's encoder to write `string` itself, alone and as a one-element array, a one-key
        /// object's key and value, and nested one level deeper, exactly as Foundation does.
        static func expectSameBytes(_ string: String, sourceLocation: SourceLocation = #_sourceLocation) {
            func check<T: Encodable>(_ value: T) {
                let fast = fastEncoded(value)
                let foundation = try? foundationEncoded(value)
                #expect(fast != nil && fast == foundation,
                        "\(Array(string.utf8)) as \(T.self)", sourceLocation: sourceLocation)
            }
            check(string)
            check([string])
            check([string: string])
            check([[string: [string]]])
        }

        @Test func randomStringsOfEveryLengthUpTo300EncodeAsFoundationDoes() {
            var random = SeededGenerator(seed: 0x5EED_0001)
            for length in 0...300 {
                for _ in 0..<6 { Self.expectSameBytes(Self.randomString(length: length, using: &random)) }
            }
        }

        @Test func aByteToEscapeAtEveryBlockBoundaryOfEveryLength() {
            let specials: [String] = ["\u{0}", "\u{1}", "\u{1F}", "\"", "\\", "/", "\n"]
            for length in 1...80 {
                let positions = Set([0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 47, 48, 63, 64]
                    .filter { $0 < length } + [length - 1, max(0, length - 2), max(0, length - 8), max(0, length - 9)])
                for position in positions {
                    for special in specials {
                        var bytes = Array(repeating: UInt8(ascii: "a"), count: length)
                        bytes[position] = special.utf8.first!
                        Self.expectSameBytes(String(decoding: bytes, as: UTF8.self))
                    }
                }
            }
        }

        @Test func cleanMultiByteTextAroundBlockBoundariesIsNotEscaped() {
            // Bytes from 0x80 up, including those whose low seven bits are a quote, a slash or a control character
            // (0xA2, 0xAF, 0x81...), must never count as bytes to escape.
            for length in 0...70 {
                for piece in ["é", "¢", "¯", "\u{81}", "\u{DC}", "中", "🙂"] {
                    var text = String(repeating: "x", count: length)
                    text += piece
                    text += String(repeating: "y", count: length % 17)
                    Self.expectSameBytes(text)
                }
            }
        }

        /// The scan's answer worked out one byte at a time.
        static func cleanPrefix(_ bytes: UnsafeRawBufferPointer) -> Int {
            bytes.firstIndex {
                $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") || $0 == UInt8(ascii: "/")
            } ?? bytes.count
        }

        /// Each length in its own allocation of exactly that many bytes, so that under `scripts/sanitize address`
        /// a load one byte before or after them is reported (a Swift string's storage has room after its bytes,
        /// which would hide an over-read).
        @Test func theScanReadsOnlyItsOwnBytesAndFindsTheFirstToEscape() {
            #expect(modelstore_json_clean_prefix(nil, 0) == 0)
            var random = SeededGenerator(seed: 0x5EED_3000)
            let flags: [UInt8] = [0x00, 0x1F, 0x22, 0x2F, 0x5C, 0x0A]
            let clean: [UInt8] = [0x20, 0x21, 0x23, 0x2E, 0x30, 0x5B, 0x5D, 0x7F, 0x80, 0xA2, 0xAF, 0xDC, 0xFF]
            for length in 1...100 {
                let bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: length, alignment: 1)
                defer { bytes.deallocate() }
                for position in -1..<length {
                    for _ in 0..<3 {
                        for index in 0..<length { bytes[index] = clean.randomElement(using: &random)! }
                        if position >= 0 { bytes[position] = flags.randomElement(using: &random)! }
                        // A second flag after the first must not change the answer.
                        if position >= 0, position + 1 < length, Bool.random(using: &random) {
                            bytes[Int.random(in: (position + 1)..<length, using: &random)] = 0x01
                        }
                        let start = bytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
                        #expect(
                            modelstore_json_clean_prefix(start, length)
                                == Self.cleanPrefix(UnsafeRawBufferPointer(bytes)),
                            "length \(length), flag at \(position)")
                    }
                }
            }
        }

        /// A model with two keys that are one key to Swift (canonically equivalent) but not the same bytes.
        struct EquivalentKeys: Encodable {
            let first: String
            let second: String
            struct Key: CodingKey {
                var stringValue: String
                init(stringValue: String) { self.stringValue = stringValue }
                var intValue: Int? { nil }
                init?(intValue: Int) { nil }
            }
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: Key.self)
                try container.encode(1, forKey: Key(stringValue: first))
                try container.encode(2, forKey: Key(stringValue: second))
            }
        }

        @Test func canonicallyEquivalentKeysAreOneKeyAsInFoundation() throws {
            for (first, second) in [("é", "e\u{301}"), ("K", "\u{212A}"), ("Å", "\u{212B}"), ("e\u{301}", "é")] {
                let model = EquivalentKeys(first: first, second: second)
                // The fast encoder cannot take back the first member, so it leaves the object to Foundation.
                #expect(fastEncoded(model) == nil)
                let written = try JSONCodecTests.codec.encode(model)
                #expect(Array(written) == (try foundationEncoded(model)))
                #expect(try JSONDecoder().decode([String: Int].self, from: written).count == 1)
            }
        }

        /// `"` + `\u0001` × `count` + `"`: what a string of `count` U+0001 characters encodes as.
        static func expectedEscapes(_ count: Int, prefix: String = "") -> [UInt8] {
            var bytes = [UInt8(ascii: "\"")] + Array(prefix.utf8)
            bytes.reserveCapacity(count * 6 + prefix.utf8.count + 2)
            for _ in 0..<count { bytes += Array(#"\u0001"#.utf8) }
            return bytes + [UInt8(ascii: "\"")]
        }

        @Test(.long) func aMegabyteThatExpandsSixfoldMatchesFoundation() throws {
            for prefix in ["", "abcdefghijklm", String(repeating: "q", count: 511)] {
                let string = prefix + String(repeating: "\u{1}", count: 1 << 20)
                let fast = try #require(fastEncoded(string))
                #expect(fast == Self.expectedEscapes(1 << 20, prefix: prefix))
                #expect(fast == (try foundationEncoded(string)))
            }
            // A long clean run whose only escape is its last byte: the room reserved for the run is used up exactly.
            let tail = String(repeating: "b", count: (1 << 20) - 1) + "\u{1}"
            #expect(fastEncoded(tail) == (try foundationEncoded(tail)))
        }

        @Test(.long, .timeLimit(.minutes(5))) func sixteenMegabytesThatExpandSixfold() throws {
            let count = 16 << 20
            let string = "x" + String(repeating: "\u{1}", count: count)
            var buffer: [UInt8] = [42]
            try JSONCodecTests.codec.encode(string, appendingTo: &buffer)
            #expect(buffer.count == 1 + 3 + count * 6)
            #expect(buffer[0] == 42)
            #expect(buffer[1...3] == [UInt8(ascii: "\""), UInt8(ascii: "x"), UInt8(ascii: "\\")])
            #expect(Array(buffer.suffix(7)) == Array(#"\u0001""#.utf8))
            // The thread's writer gave back its large block: a small value right after is still exact.
            #expect(fastEncoded(["a/b"]) == Array(#"["a\/b"]"#.utf8))
        }

        @Test func aDocumentPast64KiBAndThenSmallOnesOnTheSameThread() throws {
            var random = SeededGenerator(seed: 0x5EED_0002)
            for round in 0..<4 {
                let big = (0..<(3_000 + round * 1_000)).map { _ in Self.randomString(length: 30, using: &random) }
                #expect(fastEncoded(big) == (try foundationEncoded(big)))
                for length in [0, 1, 15, 16, 17, 600] {
                    Self.expectSameBytes(Self.randomString(length: length, using: &random))
                }
            }
        }

        /// Failures counted across threads.
        // Unchecked: its one counter is only touched under the lock.
        final class FailureCount: @unchecked Sendable {
            private let lock = NSLock()
            private var count = 0
            func add() { lock.withLock { count += 1 } }
            var value: Int { lock.withLock { count } }
        }

        @Test(.long) func manyThreadsEncodingAtOnceEachGetTheirOwnBytes() {
            let failures = FailureCount()
            DispatchQueue.concurrentPerform(iterations: 8) { thread in
                var random = SeededGenerator(seed: 0x5EED_1000 + UInt64(thread))
                for round in 0..<150 {
                    let length = round % 10 == 0 ? 40_000 : Int.random(in: 0...300, using: &random)
                    let string = Self.randomString(length: length, using: &random)
                    let values = [string, String(thread)]
                    let fast = JSONCodecTests.fastEncoded(values)
                    let foundation = try? JSONCodecTests.foundationEncoded(values)
                    if fast == nil || fast != foundation { failures.add() }
                }
            }
            #expect(failures.value == 0)
        }
    }
}
