/// The codecs ModelStore can always read, whatever codec a store is configured to write; the store picks one by the
/// identifier in each record's header.
package enum BuiltInCodecs {
    package static let json = JSONModelCodec()
    package static let propertyList = PropertyListModelCodec()
    package static let binary = BinaryModelCodec()

    package static func codec(for identifier: ModelCodecIdentifier) -> (any ModelCodec)? {
        switch identifier {
        case .json: return json
        case .propertyList: return propertyList
        case .binary: return binary
        default: return nil
        }
    }
}
