#if Hummingbird
import Foundation

extension Duration {
    /// The duration in seconds, with its sub-second part to the nearest attosecond that a
    /// `Double` can hold (far finer than the milliseconds the driver promises).
    var secondsValue: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) * 1e-18
    }
}

/// A type that decodes from any stored model without reading it: the driver reads a record's
/// expiry this way without knowing the type of the value stored.
struct AnyStoredValue: Decodable {
    init(from decoder: any Decoder) throws {}
}
#endif
