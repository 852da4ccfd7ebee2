// The quick-start demo that `make demo` runs. It uses the default directory, which is
// per program (~/.cache/ModelStore/modelstore-demo on Linux), shows each feature once, and
// deletes what it created.
//
// The blocks between "README:" markers appear verbatim in README.md; a test keeps them
// in sync.
import Foundation
import ModelStore

struct Book: Codable, Equatable { var name: String; var price: Double }
struct User: Codable, Equatable { var userName: String; var book: Book }

/// A small model for the import demo.
struct Item: Codable, Sendable {
    var id: Int
    var title: String
    var tags: [String]
}

let demoNames = ["userdb", "policies", "items"]
let isTerminal = isatty(STDOUT_FILENO) == 1

func section(_ title: String) {
    print("\n== \(title)")
}

/// Draws a progress bar on a terminal, or prints plain milestones when piped. A plain class:
/// the import calls its progress closure in the caller's isolation, so it need not be Sendable.
final class ProgressBar {
    private var lastQuarter = -1

    func update(_ progress: ModelStore.ImportProgress) {
        let fraction = progress.fractionCompleted ?? 0
        if isTerminal {
            let width = 30
            let filled = Int(fraction * Double(width))
            let bar = String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled)
            print("\r  [\(bar)] \(Int(fraction * 100))%  \(progress.completed) records", terminator: "")
            if progress.completed == progress.total { print("") }
            fflush(nil)  // nil flushes every stream, including standard output
        } else {
            let quarter = Int(fraction * 4)
            if quarter != lastQuarter {
                lastQuarter = quarter
                print("  \(progress.completed) of \(progress.total ?? 0) records")
            }
        }
    }
}

func run() async throws {
    let root = ModelStore.defaultDirectory
    for name in demoNames where FileManager.default.fileExists(atPath: root.appendingPathComponent(name).path) {
        print("A database named \"\(name)\" already exists under \(root.path).")
        print("The demo would delete it when it finishes, so it stops here and leaves it alone.")
        exit(1)
    }
    print("ModelStore demo, using \(root.path)")

    section("The basics")
    // README: basics
    let user = User(userName: "ada", book: Book(name: "Notes on the Analytical Engine", price: 12.5))
    let store = try ModelStore(name: "userdb", policy: .low)          // records live 24 hours
    try store.set(user, forKey: "user")
    let cached: User? = try store.object(forKey: "user")              // nil if missing or expired
    let same = try store.object(User.self, forKey: "user")
    let entry = try store.entry(User.self, forKey: "user")            // value + storedAt + expiresAt
    try store.set(user, forKey: "session", expiresAfter: 30)          // this record lives 30 seconds
    // README: end
    print("hit: \(cached?.userName ?? "nil"), same: \(same == cached)")
    print("stored at \(entry!.storedAt), expires at \(entry!.expiresAt!)")
    print("contains \"session\": \(try store.contains("session"))")
    print("database directory: \(store.url.path)")

    section("Update policies and expiry")
    // The clock is injectable; here it jumps ahead instead of waiting for days.
    let offset = Offset()
    var configuration = ModelStore.Configuration()
    configuration.now = { Date().addingTimeInterval(offset.seconds) }
    for policy in [UpdatePolicy.lowest, .low, .middle, .high, .highest, .custom(90), .never] {
        let policies = try ModelStore(name: "policies", policy: policy, configuration: configuration)
        try policies.set(user, forKey: "\(policy)")
        let lifetime = policy.timeToLive.map { "\(Int($0)) s" } ?? "forever"
        print("  \(String(describing: policy).padding(toLength: 22, withPad: " ", startingAt: 0)) lives \(lifetime)")
        try policies.close()
    }
    let hourly = try ModelStore(name: "policies", policy: .middle, configuration: configuration)
    try hourly.set(user, forKey: "fresh")
    print("right after storing: \(try hourly.object(User.self, forKey: "fresh")?.userName ?? "nil")")
    offset.seconds = 3_600
    print("one hour later:      \(try hourly.object(User.self, forKey: "fresh")?.userName ?? "nil (expired and removed)")")
    try hourly.close()

    section("Import 100,000 records in atomic batches")
    let started = ContinuousClock.now
    let bar = ProgressBar()
    // README: import
    let items = try ModelStore(name: "items", policy: .lowest)        // records live 7 days
    let models = (0..<100_000).lazy.map { Item(id: $0, title: "Item \($0)", tags: ["demo"]) }
    let report = try await items.importObjects(models, key: \.id, batchSize: 1_000) { progress in
        bar.update(progress)
    }
    // README: end
    let elapsed = ContinuousClock.now - started
    print("imported \(report.written) records in \(report.chunks) atomic batches in \(elapsed)")

    section("Snapshots, batches and enumeration")
    // README: snapshot
    let snapshot = try items.snapshot()                       // a consistent, read-only view
    try items.write { batch in                                // all or nothing
        try batch.set(Item(id: 1, title: "Renamed", tags: []), forKey: "1")
        batch.removeObject(forKey: "2")
    }
    let before = try snapshot.object(Item.self, forKey: "1")  // still "Item 1"
    let after = try items.object(Item.self, forKey: "1")      // "Renamed"
    // README: end
    print("snapshot sees \"\(before?.title ?? "nil")\", the store sees \"\(after?.title ?? "nil")\"")
    snapshot.close()
    // README: enumerate
    let firstTen = try items.keys(in: .prefix("9999"), limit: 10).collect()
    let cursor = try items.entries(Item.self, in: .range(from: "4242", to: "42421"))  // "4242", "42420"
    while let entry = try cursor.next() {
        print(entry.key, entry.value.title)
    }
    // README: end
    print("keys with prefix 9999: \(firstTen.joined(separator: ", "))")
    // LevelDB's size estimate counts only sorted tables; a compaction writes out the records
    // still held in its in-memory buffer (16 MiB by default) first.
    try items.compact()
    print("records: \(try items.count()), on disk: about \(try items.approximateSize() / 1_024) KiB")

    section("Sweeping and cleaning up")
    let removed = try items.removeExpiredObjects()
    print("sweep removed \(removed) expired records (none are a week old yet)")
    try items.deleteFromDisk()
    try store.deleteFromDisk()
    try await ModelStore.deleteDatabase(named: "policies")
    // The demo's own folder goes too if it is empty now (rmdir removes only an empty folder),
    // so no empty program folder is left for `modelstore list` to suggest.
    if rmdir(root.path) == 0 {
        print("deleted the demo's databases and its folder \(root.path)")
    } else {
        print("deleted the demo's databases; \(root.path) holds none of them now")
    }
}

/// How far the demo's clock runs ahead of the real one.
final class Offset: @unchecked Sendable {
    // @unchecked: written only by the demo's single task between reads.
    var seconds: TimeInterval = 0
}

do {
    try await run()
} catch {
    for name in demoNames { try? ModelStore.deleteDatabase(named: name) }
    rmdir(ModelStore.defaultDirectory.path)  // only if empty: as the demo found it
    print("The demo failed: \(error)")
    exit(1)
}
