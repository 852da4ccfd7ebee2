import Foundation
import Testing
@testable import ModelStoreCodecs

extension JSONCodecTests {
    /// What ModelStore's encoder on its own writes for `value`, or nil when it leaves the value to Foundation.
    static func fastEncoded<T: Encodable>(_ value: T) -> [UInt8]? {
        var bytes: [UInt8] = []
        return (try? JSONFastEncoder.encode(value, appendingTo: &bytes)) == true ? bytes : nil
    }

    /// What a fresh `JSONEncoder()` writes for `value`.
    static func foundationEncoded<T: Encodable>(_ value: T) throws -> [UInt8] {
        Array(try JSONEncoder().encode(value))
    }

    /// `json` with every object's members sorted by their key's bytes and every other token kept exactly as
    /// written: two documents that differ only in member order (which Foundation draws from a `Dictionary`, so it
    /// changes from run to run) have the same canonical form, and any other difference of a byte shows.
    static func canonical(_ json: [UInt8]) -> [UInt8] {
        var index = 0
        return canonicalValue(json, &index)
    }

    private static func canonicalValue(_ json: [UInt8], _ index: inout Int) -> [UInt8] {
        switch json[index] {
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            let isObject = json[index] == UInt8(ascii: "{")
            index += 1
            var members: [[UInt8]] = []
            while json[index] != UInt8(ascii: isObject ? "}" : "]") {
                if json[index] == UInt8(ascii: ",") { index += 1 }
                var member = canonicalValue(json, &index)
                if isObject {
                    index += 1  // the colon
                    member += [UInt8(ascii: ":")] + canonicalValue(json, &index)
                }
                members.append(member)
            }
            index += 1
            if isObject { members.sort { $0.lexicographicallyPrecedes($1) } }
            let body = members.joined(separator: [UInt8(ascii: ",")])
            return (isObject ? [UInt8(ascii: "{")] : [UInt8(ascii: "[")]) + body
                + (isObject ? [UInt8(ascii: "}")] : [UInt8(ascii: "]")])
        case UInt8(ascii: "\""):
            let start = index
            index += 1
            while json[index] != UInt8(ascii: "\"") { index += json[index] == UInt8(ascii: "\\") ? 2 : 1 }
            index += 1
            return Array(json[start..<index])
        default:
            let start = index
            while index < json.count, !",:]}".utf8.contains(json[index]) { index += 1 }
            return Array(json[start..<index])
        }
    }

    /// Checks that ModelStore's encoder writes `value` itself, as Foundation does: the same bytes when Foundation's
    /// are deterministic (no object with two keys), the same bytes up to member order otherwise, and bytes that
    /// `JSONDecoder` and ModelStore's decoder both read back as `value`.
    static func expectEncodesLikeFoundation<T: Codable & Equatable>(
        _ value: T,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        guard let fast = fastEncoded(value) else {
            Issue.record("the fast encoder gave up on \(value)", sourceLocation: sourceLocation)
            return
        }
        do {
            let foundation = try foundationEncoded(value)
            if fast != foundation {
                #expect(
                    canonical(fast) == canonical(foundation),
                    "\(String(decoding: fast, as: UTF8.self)) vs \(String(decoding: foundation, as: UTF8.self))",
                    sourceLocation: sourceLocation
                )
            }
            #expect(same(try JSONDecoder().decode(T.self, from: Data(fast)), value), sourceLocation: sourceLocation)
            // Through the codec: its decoder defers to Foundation for models that catch errors (JSONValue).
            let fastDecoded = try fast.withUnsafeBytes { try JSONCodecTests.codec.decode(T.self, fromBytes: $0) }
            #expect(same(fastDecoded, value), sourceLocation: sourceLocation)
        } catch {
            Issue.record("\(error)", sourceLocation: sourceLocation)
        }
    }

    /// Checks that Foundation's bytes for `value` are exactly ModelStore's (for values without multi-key objects).
    static func expectSameBytes<T: Encodable>(_ value: T, sourceLocation: SourceLocation = #_sourceLocation) {
        let fast = fastEncoded(value).map { String(decoding: $0, as: UTF8.self) }
        let foundation = (try? foundationEncoded(value)).map { String(decoding: $0, as: UTF8.self) }
        #expect(fast != nil, sourceLocation: sourceLocation)
        #expect(fast == foundation, sourceLocation: sourceLocation)
    }

    /// Checks that ModelStore's encoder leaves `value` to Foundation, and that the codec then writes what
    /// Foundation writes (up to member order) or throws as it does.
    static func expectLeftToFoundation<T: Encodable>(_ value: T, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(fastEncoded(value) == nil, sourceLocation: sourceLocation)
        var buffer: [UInt8] = [7]
        let codec = Result { try JSONCodecTests.codec.encode(value, appendingTo: &buffer) }
        switch (codec, Result { try foundationEncoded(value) }) {
        case (.success, .success(let foundation)):
            #expect(buffer.first == 7, sourceLocation: sourceLocation)
            #expect(canonical(Array(buffer.dropFirst())) == canonical(foundation), sourceLocation: sourceLocation)
        case (.failure(let codecError), .failure(let foundationError)):
            #expect(buffer == [7], sourceLocation: sourceLocation)
            #expect("\(codecError)" == "\(foundationError)", sourceLocation: sourceLocation)
        default:
            Issue.record("codec \(codec) but Foundation disagrees", sourceLocation: sourceLocation)
        }
    }
}
