#if Hummingbird
/// A type that decodes from any stored model without reading it: the driver reads a record's
/// expiry this way without knowing the type of the value stored.
struct AnyStoredValue: Decodable {
    init(from decoder: any Decoder) throws {}
}
#endif
