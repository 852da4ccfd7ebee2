import Foundation
import ModelStore

/// How the tool prints sizes, dates and durations for people (JSON output uses raw numbers
/// and ISO 8601 instead).
enum Format {
    /// `1536` as `1.5 KiB`; exact bytes below 1 KiB.
    static func bytes<Count: BinaryInteger>(_ count: Count) -> String {
        let units = ["bytes", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(count)
        var unit = 0
        while value >= 1024, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return unit == 0 ? "\(count) bytes" : String(format: "%.1f", value) + " " + units[unit]
    }

    /// An ISO 8601 timestamp in UTC, such as `2026-11-21T16:09:00Z`.
    static func date(_ date: Date) -> String {
        date.formatted(.iso8601)
    }

    /// A duration in seconds with millisecond precision, such as `0.042 s`.
    static func seconds(_ duration: Duration) -> String {
        String(format: "%.3f s", TimeBounds.seconds(duration))
    }

    /// `1` as `1 record` and `2` as `2 records`.
    static func count(_ count: Int, _ noun: String) -> String {
        "\(count) \(noun)\(count == 1 ? "" : "s")"
    }

    /// `text` padded with spaces to `width` columns, on the left when `right` is true.
    static func pad(_ text: String, _ width: Int, right: Bool = false) -> String {
        let padding = String(repeating: " ", count: max(0, width - text.count))
        return right ? padding + text : text + padding
    }
}
