import Foundation
import ModelStore

/// A stored model read without its type: its JSON, and which codec wrote it.
///
/// The inspection store decodes JSON records with a decoder of its own that carries a marker
/// in its `userInfo`. ModelStore picks the decoder by the codec byte in each record's header,
/// so a value decoded without the marker came through another built-in codec (a property
/// list) and is shown converted to JSON. Records of codecs ModelStore cannot read itself
/// (binary, custom) fail to decode and are reported as such.
struct InspectedValue: Decodable, Sendable {
    /// The model as JSON.
    let json: JSONValue
    /// The codec that wrote the record, as far as the tool can tell.
    let codec: String

    /// The `userInfo` key that marks the inspection store's JSON decoder.
    static let jsonMarker = CodingUserInfoKey(rawValue: "ModelStoreCLI.jsonCodec")!

    /// The codec inspection stores are configured with.
    static var inspectionCodec: JSONModelCodec {
        let decoder = JSONDecoder()
        decoder.userInfo[jsonMarker] = true
        return JSONModelCodec(decoder: decoder)
    }

    init(from decoder: any Decoder) throws {
        json = try JSONValue(from: decoder)
        codec =
            decoder.userInfo[Self.jsonMarker] != nil
            ? ModelCodecIdentifier.json.description : ModelCodecIdentifier.propertyList.description
    }
}
