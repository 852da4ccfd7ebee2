package import Foundation

/// Checks property-list bytes before they reach Foundation's `PropertyListDecoder` or `PropertyListSerialization`.
///
/// Foundation's parsers recurse once per nested array or dictionary with no limit, and its binary parser follows
/// object references without noticing cycles: a record of 100,000 nested `<array>` elements overflows the stack,
/// and a binary property list whose array contains itself runs for minutes before a recursive model crashes. Every
/// byte a property-list path hands to Foundation passes this check first, which does a bounded amount of work
/// (linear in the input) without recursion, and throws `DecodingError.dataCorrupted` for input that nests deeper
/// than ``maximumDepth``, refers to itself, or is damaged in a way that would make Foundation read out of bounds.
///
/// It accepts the two formats Foundation writes:
///
/// - Binary (`bplist00`): the 32-byte trailer, the offset table and every reachable object's bounds are checked,
///   and references are followed from the top object with an explicit stack that rejects cycles, nesting deeper
///   than ``maximumDepth`` and more than ``maximumVisitsPerByte`` object visits per input byte (shared
///   subtrees can otherwise multiply the work exponentially).
/// - XML: one pass over the markup that counts element nesting, skipping comments, processing instructions,
///   CDATA sections and the document type declaration, each ending where Foundation's scanner ends it (a tag at
///   its first `>`, even inside quotes).
///
/// Anything else (the old OpenStep text format, UTF-16 XML, ...) is rejected, because its work cannot be bounded
/// the same way. ``PropertyListModelCodec`` writes the binary format only.
package enum PropertyListValidator {
    /// The deepest nesting of arrays and dictionaries accepted, the same limit as the JSON and binary codecs'.
    package static let maximumDepth = 512

    /// How many object visits a binary property list may cause per byte of input. Writers share an object only
    /// when it is a scalar or an equal collection, so real property lists stay far below it.
    package static let maximumVisitsPerByte = 16

    /// Throws `DecodingError.dataCorrupted` unless `data` is a binary or XML property list Foundation can parse
    /// within the limits.
    package static func validate(_ data: Data) throws {
        try data.withUnsafeBytes { try validate($0) }
    }

    /// Throws `DecodingError.dataCorrupted` unless `bytes` hold a binary or XML property list Foundation can parse
    /// within the limits.
    package static func validate(_ bytes: UnsafeRawBufferPointer) throws {
        do {
            if BinaryPropertyListWalker.hasHeader(bytes) {
                var walker = BinaryPropertyListWalker(bytes)
                try walker.walk()
            } else if XMLPropertyListScanner.looksLikeXML(bytes) {
                try XMLPropertyListScanner.scan(bytes)
            } else {
                throw PropertyListProblem("it is neither a binary (bplist00) nor an XML property list", at: 0)
            }
        } catch let problem as PropertyListProblem {
            throw DecodingError.dataCorrupted(.init(
                codingPath: [],
                debugDescription: "The given data is not a property list ModelStore can read: \(problem.reason) "
                    + "(at byte \(problem.offset))."
            ))
        }
    }
}

/// Why a property list was rejected, and where.
struct PropertyListProblem: Error {
    let reason: String
    let offset: Int

    init(_ reason: String, at offset: Int) {
        self.reason = reason
        self.offset = offset
    }
}
