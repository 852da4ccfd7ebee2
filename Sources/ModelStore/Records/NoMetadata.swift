/// The metadata of a record written without metadata, for the write path's functions that are
/// generic over the metadata's type (which compare `Metadata.self` with it): encodes nothing and
/// is never stored.
@usableFromInline
struct NoMetadata: Encodable {
    @inlinable
    init() {}

    @usableFromInline
    func encode(to encoder: any Encoder) throws {}
}
