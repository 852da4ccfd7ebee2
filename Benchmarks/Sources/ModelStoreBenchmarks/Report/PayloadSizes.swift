import Foundation
import ModelStore

/// The mean encoded size of the corpus's distinct profiles under each codec.
struct PayloadSizes {
    var json: Double
    var binary: Double
    var propertyList: Double

    /// Encodes every profile of the pool once with each codec.
    static func measure() throws -> PayloadSizes {
        let corpus = ProfileCorpus(count: ProfileCorpus.poolSize)
        func mean(_ codec: some ModelCodec) throws -> Double {
            var total = 0
            for number in 0..<ProfileCorpus.poolSize {
                total += try codec.encode(corpus.profile(number)).count
            }
            return Double(total) / Double(ProfileCorpus.poolSize)
        }
        return PayloadSizes(
            json: try mean(JSONModelCodec()), binary: try mean(BinaryModelCodec()),
            propertyList: try mean(PropertyListModelCodec()))
    }

    var markdown: String {
        String(
            format: "- Model: `Profile`, a mean of %.0f bytes as JSON, %.0f as binary, %.0f as a binary property list",
            json, binary, propertyList)
    }
}
