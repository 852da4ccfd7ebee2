import Foundation

/// The types containers read straight from a tape entry, as Foundation's containers do for their concrete
/// `decode(_:)` overloads.
protocol JSONScalar: Decodable {
    static func read(from state: JSONDecodingState, at index: Int) throws(JSONValueError) -> Self
}

extension Bool: JSONScalar {
    static func read(from state: JSONDecodingState, at index: Int) throws(JSONValueError) -> Bool {
        switch state.kind(at: index) {
        case .true: return true
        case .false: return false
        case .null: throw .valueNotFound
        case let kind: throw .typeMismatch(found: kind)
        }
    }
}

extension String: JSONScalar {
    static func read(from state: JSONDecodingState, at index: Int) throws(JSONValueError) -> String {
        state.string(of: try state.expect(.string, at: index))
    }
}

extension Double: JSONScalar {
    static func read(from state: JSONDecodingState, at index: Int) throws(JSONValueError) -> Double {
        try JSONNumberParser.double(state.text(of: try state.expect(.number, at: index)))
    }
}

extension Float: JSONScalar {
    static func read(from state: JSONDecodingState, at index: Int) throws(JSONValueError) -> Float {
        try JSONNumberParser.float(state.text(of: try state.expect(.number, at: index)))
    }
}

/// Integers share one reader.
protocol JSONIntegerScalar: JSONScalar, FixedWidthInteger {}

extension JSONIntegerScalar {
    @inline(__always)
    static func read(from state: JSONDecodingState, at index: Int) throws(JSONValueError) -> Self {
        let entry = try state.expect(.number, at: index)
        return try JSONNumberParser.integer(
            Self.self,
            state.text(of: entry),
            isPlain: entry.has(JSONTapeEntry.Flags.plainInteger)
        )
    }
}

extension Int: JSONIntegerScalar {}
extension Int8: JSONIntegerScalar {}
extension Int16: JSONIntegerScalar {}
extension Int32: JSONIntegerScalar {}
extension Int64: JSONIntegerScalar {}
extension UInt: JSONIntegerScalar {}
extension UInt8: JSONIntegerScalar {}
extension UInt16: JSONIntegerScalar {}
extension UInt32: JSONIntegerScalar {}
extension UInt64: JSONIntegerScalar {}

@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
extension Int128: JSONIntegerScalar {}

@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
extension UInt128: JSONIntegerScalar {}
