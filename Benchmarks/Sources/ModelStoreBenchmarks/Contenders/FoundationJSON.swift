import ModelStore

extension JSONModelCodec {
    /// JSON through Foundation's `JSONEncoder` and `JSONDecoder` alone, as a user of the C API
    /// or of GRDB would write it: the baseline's codec, and the like-for-like contender's, so
    /// their ratios measure the wrapper rather than ModelStore's own JSON coders.
    static var foundation: JSONModelCodec {
        JSONModelCodec(decoding: .foundation, encoding: .foundation)
    }
}
