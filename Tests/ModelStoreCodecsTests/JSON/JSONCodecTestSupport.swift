import Foundation
import Testing
@testable import ModelStoreCodecs

/// Namespace for the JSON decoder's tests: the suites are nested in it, so these fixtures (and names such as `Book`)
/// cannot collide with other tests in the ModelStoreTests target.
enum JSONCodecTests {
    static let codec = JSONModelCodec()
    static let foundationCodec = JSONModelCodec(decoding: .foundation)

    /// Writes test documents: deterministic, so results can be compared as text.
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }()

    // MARK: - Decoding three ways

    /// What Foundation's `JSONDecoder` makes of `bytes`.
    static func foundation<T: Decodable>(_ type: T.Type, _ bytes: [UInt8]) -> Result<T, any Error> {
        Result { try JSONDecoder().decode(type, from: Data(bytes)) }
    }

    /// What ModelStore's decoder makes of `bytes` on its own, without Foundation behind it.
    static func fast<T: Decodable>(_ type: T.Type, _ bytes: [UInt8]) -> Result<T, any Error> {
        Result { try bytes.withUnsafeBytes { try JSONFastDecoder.decode(type, from: $0) } }
    }

    /// What the codec (fast decoder, then Foundation) returns, through both of its decode methods.
    static func codec<T: Decodable>(_ type: T.Type, _ bytes: [UInt8]) -> (Result<T, any Error>, Result<T, any Error>) {
        let fromBytes = Result { try bytes.withUnsafeBytes { try codec.decode(type, fromBytes: $0) } }
        let fromData = Result { try codec.decode(type, from: Data(bytes)) }
        return (fromBytes, fromData)
    }

    /// Whether two decoded values are the same: equal, and (unless the type holds Sets, whose encoding order
    /// varies) encoding to the same text, which also tells -0.0 from 0.0 and one String's bytes from another's.
    static func same<T: Equatable>(_ lhs: T, _ rhs: T) -> Bool {
        guard lhs == rhs else { return false }
        guard let lhs = lhs as? any Encodable, let rhs = rhs as? any Encodable else { return true }
        guard !(lhs is any SetMarker) else { return true }
        let left = try? encoder.encode(lhs)
        let right = try? encoder.encode(rhs)
        return left == right
    }

    /// How the fast decoder on its own is expected to do.
    enum FastExpectation {
        /// It must decode the document itself.
        case decodes
        /// It must throw (the codec then asks Foundation).
        case defers
        /// Either, as long as a result it gives is Foundation's.
        case either
    }

    // MARK: - The documented exceptions

    /// Whether ModelStore's scanner rejects `bytes`: the codec then throws `DecodingError.dataCorrupted` and never
    /// asks Foundation, even where Foundation would decode (trailing commas, a byte-order mark).
    static func scannerRejects(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { buffer in
            do {
                try JSONScanner.scan(buffer).deallocate()
                return false
            } catch {
                return true
            }
        }
    }

    /// Whether `bytes` hold a number whose significand is zero and that has an exponent (`0e5`, `-0.00E+1`):
    /// RFC 8259 allows it and ModelStore reads it as zero, while Foundation throws for many such spellings when it
    /// reads a Double, Float or Date. The README and `JSONModelCodec` document this exception.
    static func hasZeroWithExponent(_ bytes: [UInt8]) -> Bool {
        var index = 0
        var inString = false
        while index < bytes.count {
            let byte = bytes[index]
            if inString {
                if byte == UInt8(ascii: "\\") { index += 1 } else if byte == UInt8(ascii: "\"") { inString = false }
                index += 1
                continue
            }
            if byte == UInt8(ascii: "\"") {
                inString = true
                index += 1
                continue
            }
            guard byte == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else {
                index += 1
                continue
            }
            var end = index
            while end < bytes.count, Array("+-.0123456789eE".utf8).contains(bytes[end]) { end += 1 }
            let token = bytes[index..<end].filter { $0 != UInt8(ascii: "-") }
            if let exponent = token.firstIndex(where: { $0 | 0x20 == UInt8(ascii: "e") }),
                token[..<exponent].allSatisfy({ $0 == UInt8(ascii: "0") || $0 == UInt8(ascii: ".") })
            {
                return true
            }
            index = max(end, index + 1)
        }
        return false
    }

    /// Checks that the codec gives exactly what Foundation gives for `bytes` (the same value, or an error), and
    /// that the fast decoder on its own never gives anything else, apart from the documented exceptions: a
    /// document the scanner rejects throws `dataCorrupted`, and a zero with an exponent reads as zero.
    static func expectSameAsFoundation<T: Decodable & Equatable>(
        _ type: T.Type,
        _ bytes: [UInt8],
        fast expectation: FastExpectation = .either,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        var reference = foundation(type, bytes)
        let direct = fast(type, bytes)
        let (fromBytes, fromData) = codec(type, bytes)
        let text = String(decoding: bytes.prefix(300), as: UTF8.self)
        if scannerRejects(bytes) {
            for result in [fromBytes, fromData] {
                guard case .failure(DecodingError.dataCorrupted) = result else {
                    Issue.record("the scanner rejects \(text) but the codec gave \(result)", sourceLocation: sourceLocation)
                    continue
                }
            }
            return
        }
        if case .failure = reference, hasZeroWithExponent(bytes), case .success = direct {
            // The documented exception: the codec's value is the reference.
            reference = direct
        }
        for (name, result) in [("codec.decode(_:fromBytes:)", fromBytes), ("codec.decode(_:from:)", fromData)] {
            switch (reference, result) {
            case (.success(let expected), .success(let actual)):
                #expect(
                    same(expected, actual), "\(name) gave \(actual), Foundation \(expected) for \(text)",
                    sourceLocation: sourceLocation)
            case (.failure, .failure):
                break
            case (.success(let expected), .failure(let error)):
                Issue.record(
                    "\(name) threw \(error), Foundation gave \(expected) for \(text)",
                    sourceLocation: sourceLocation)
            case (.failure(let error), .success(let actual)):
                Issue.record(
                    "\(name) gave \(actual), Foundation threw \(error) for \(text)",
                    sourceLocation: sourceLocation)
            }
        }
        switch (reference, direct) {
        case (.success(let expected), .success(let actual)):
            #expect(
                same(expected, actual), "fast decoder gave \(actual), Foundation \(expected) for \(text)",
                sourceLocation: sourceLocation)
        case (.failure(let error), .success(let actual)):
            Issue.record(
                "fast decoder gave \(actual), Foundation threw \(error) for \(text)",
                sourceLocation: sourceLocation)
        case (_, .failure):
            break
        }
        switch (expectation, direct) {
        case (.decodes, .failure(let error)):
            Issue.record("fast decoder deferred to Foundation (\(error)) for \(text)", sourceLocation: sourceLocation)
        case (.defers, .success(let value)):
            Issue.record("fast decoder decoded \(value) itself for \(text)", sourceLocation: sourceLocation)
        default:
            break
        }
    }

    /// ``expectSameAsFoundation(_:_:fast:sourceLocation:)`` for a JSON text.
    static func expectSameAsFoundation<T: Decodable & Equatable>(
        _ type: T.Type,
        json: String,
        fast expectation: FastExpectation = .either,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        expectSameAsFoundation(type, Array(json.utf8), fast: expectation, sourceLocation: sourceLocation)
    }

    /// Encodes `value` with `JSONEncoder`, and checks that the fast decoder reads it back itself, as Foundation does.
    static func expectRoundTrip<T: Codable & Equatable>(
        _ value: T,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let bytes = Array(try JSONEncoder().encode(value))
        expectSameAsFoundation(T.self, bytes, fast: .decodes, sourceLocation: sourceLocation)
        let decoded = try bytes.withUnsafeBytes { try JSONFastDecoder.decode(T.self, from: $0) }
        #expect(same(decoded, value), "round trip changed \(value) into \(decoded)", sourceLocation: sourceLocation)
    }
}

/// Marks types whose JSON text may differ between equal values (they hold Sets).
protocol SetMarker {}
extension Set: SetMarker {}
