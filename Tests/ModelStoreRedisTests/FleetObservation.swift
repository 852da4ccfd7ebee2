import Foundation
import ModelStoreTestSupport
@testable import ModelStoreRedis

// What the fleet's fault tests look at besides a node's reads: the record Redis itself holds
// for a key, and whether a state they waited for stays so.

extension RedisServer {
    /// The record Redis holds for `key` of `database` under the epoch and generation `node`
    /// uses (read on a connection of the test's own, past any proxy); nil: none.
    func record(of key: String, as node: FleetNode, database: String = "users") throws -> [UInt8]? {
        try command([Array("GET".utf8), recordKey(node, database: database, key)]).bytes
    }

    /// Which of `values` the record Redis holds for `key` (as ``record(of:as:database:)``)
    /// carries: `nil` for none, the value, or a description of a record that carries none.
    func recordValue(of key: String, as node: FleetNode, database: String = "users", among values: [String]) throws -> String? {
        guard let record = try record(of: key, as: node, database: database) else { return nil }
        return values.first { record.carries($0) } ?? "a record of \(record.count) bytes carrying none of \(values)"
    }
}

extension Array where Element == UInt8 {
    /// Whether `value`'s UTF-8 bytes appear in these: a record's payload holds a `Profile`'s
    /// string as it is (no compression or encryption on the tests' nodes), so tests that give
    /// each write a distinct string tell from Redis's bytes which write it holds.
    func carries(_ value: String) -> Bool {
        let needle = Array(value.utf8)
        guard !needle.isEmpty, needle.count <= count else { return false }
        return (0...(count - needle.count)).contains { start in self[start..<(start + needle.count)].elementsEqual(needle) }
    }
}

/// Runs `check` every `interval` for `duration` and returns what it reported (nil: all well):
/// a test's "and it stays so" after the state it waited for. Real time on purpose: what it
/// watches for is a late change.
func violations(
    during duration: Duration, every interval: Duration = .milliseconds(2), _ check: () throws -> String?
) rethrows -> [String] {
    let clock = ContinuousClock()
    let start = clock.now
    var found: [String] = []
    while clock.now - start < duration {
        if let violation = try check() { found.append(violation) }
        let (seconds, attoseconds) = interval.components
        usleep(UInt32(seconds * 1_000_000 + attoseconds / 1_000_000_000_000))
    }
    return found
}

/// `text` with "nil" for none, for failure messages.
func shown(_ text: String?) -> String { text ?? "nil" }
