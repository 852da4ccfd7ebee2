#if Vapor
import Foundation
import Vapor

extension CacheExpirationTime {
    /// The expiration time in seconds, counted in floating point: Vapor's own `seconds`
    /// multiplies in `Int` and traps beyond `Int.max` seconds (`.days(Int.max)`,
    /// `.hours(Int.max / 1000)`). Every case gives a finite number, which the store keeps as
    /// the record's lifetime when it is positive.
    var lifetime: TimeInterval {
        switch self {
        case let .seconds(count): TimeInterval(count)
        case let .minutes(count): TimeInterval(count) * 60
        case let .hours(count): TimeInterval(count) * 3_600
        case let .days(count): TimeInterval(count) * 86_400
        }
    }
}
#endif
