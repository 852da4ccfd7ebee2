import Foundation
import ModelStore

/// A JSON record read without its model type.
///
/// The inspection store decodes JSON records with a decoder of its own that carries a marker
/// in its `userInfo`. ModelStore picks the decoder by the codec byte in each record's header,
/// so a decoder without the marker means another codec wrote the record. Decoding then
/// fails on purpose: the binary codec's bytes only make sense with the model type (decoding
/// them as "any value" would show garbage), and property lists are converted by
/// ``RawRecordReader`` from their raw bytes, so every record is labelled with the codec that
/// really wrote it.
struct InspectedValue: Decodable, Sendable {
    /// The model as JSON.
    let json: JSONValue

    /// The `userInfo` key that marks the inspection store's JSON decoder.
    static let jsonMarker = CodingUserInfoKey(rawValue: "ModelStoreCLI.jsonCodec")!

    /// The codec inspection stores are configured with.
    static var inspectionCodec: JSONModelCodec {
        let decoder = JSONDecoder()
        decoder.userInfo[jsonMarker] = true
        return JSONModelCodec(decoder: decoder)
    }

    init(from decoder: any Decoder) throws {
        guard decoder.userInfo[Self.jsonMarker] != nil else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: [], debugDescription: "not a JSON record; read it through RawRecordReader"))
        }
        json = try JSONValue(from: decoder)
    }
}
