// Helper modes for the reliability tests (Tests/ModelStoreTests/Reliability):
//
//   write-mixed ROOT NAME START SEED [sync]   open NAME (64 KiB write buffer, so tables and
//        compactions happen), print "ready", then forever perform random operations on keys
//        m0...m63, numbered from START: print "begin OP set KEY" / "begin OP del KEY" /
//        "begin OP delmany K1,K2,..." / "begin OP batch SETKEYS REMOVEDKEYS|-" /
//        "begin OP import K1,K2,K3,K4" (one line per import chunk) before each and "ack OP"
//        once it returned. The test kills the process with SIGKILL at a random moment.
//   fill-until-full ROOT NAME BYTES           limit file size (RLIMIT_FSIZE, SIGXFSZ ignored),
//        write k0, k1, ... until a write fails, then report what later writes and reads do.
//   fd-exhaust ROOT NAME [LIMIT]              lower RLIMIT_NOFILE (default 128) and report the errors seen
//        when opening databases and reading tables without file descriptors.
//   open-with-policy ROOT NAME POLICY [nobody] open with a corruption policy (as user
//        nobody if asked) and print "ok N" (records among k0...k99) or "error CASE MESSAGE".
import Foundation
import ModelStore
import ModelStoreTestSupport
#if canImport(Glibc)
import Glibc
#endif

func runReliabilityMode(_ command: String, root: String, name: String, extra: [String]) -> Bool {
    do {
        switch command {
        case "write-mixed":
            try writeMixed(root: root, name: name, start: Int(extra[0])!, seed: UInt64(extra[1])!,
                           sync: extra.contains("sync"))
        case "write-compressed":
            try writeCompressed(root: root, name: name, samples: Int(extra[0])!)
        case "fill-until-full":
            try fillUntilFull(root: root, name: name, limit: Int(extra[0])!)
        case "fd-exhaust":
            try exhaustDescriptors(root: root, name: name, limit: extra.first.flatMap { Int($0) } ?? 128)
        case "open-with-policy":
            openWithPolicy(root: root, name: name, policy: extra[0], asNobody: extra.contains("nobody"))
        default:
            return try runRecoveryMode(command, root: root, name: name, extra: extra)
        }
    } catch {
        say("error \(caseName(error)) \(error)")
        exit(1)
    }
    return true
}

func writeMixed(root: String, name: String, start: Int, seed: UInt64, sync: Bool) throws {
    var configuration = configuration(root: root)
    configuration.writeBufferSize = 64 << 10
    configuration.syncWrites = sync
    let store = try ModelStore(name: name, policy: .never, configuration: configuration)
    say("ready")
    var random = SeededGenerator(seed: seed)
    var op = start
    while true {
        let key = "m\(Int.random(in: 0..<64, using: &random))"
        switch Int.random(in: 0..<10, using: &random) {
        case 0..<4:
            say("begin \(op) set \(key)")
            try store.set(CrashRecord(op: op), forKey: key)
        case 4..<6:
            say("begin \(op) del \(key)")
            try store.removeObject(forKey: key)
        case 6:
            let keys = randomKeys(Int.random(in: 2...6, using: &random), random: &random)
            say("begin \(op) delmany \(keys.sorted().joined(separator: ","))")
            try store.removeObjects(forKeys: keys)
        default:
            if Bool.random(using: &random) {
                try writeBatch(store, op: op, random: &random)
            } else {
                op = try importChunks(store, firstOp: op, random: &random)
                continue  // importChunks printed its own acks
            }
        }
        say("ack \(op)")
        op += 1
    }
}

/// Distinct random keys among m0...m63.
func randomKeys(_ count: Int, random: inout SeededGenerator) -> [String] {
    var keys = Set<String>()
    while keys.count < count { keys.insert("m\(Int.random(in: 0..<64, using: &random))") }
    return keys.sorted()
}

/// One atomic batch of sets and removals (on disjoint keys).
func writeBatch(_ store: ModelStore, op: Int, random: inout SeededGenerator) throws {
    let keys = randomKeys(Int.random(in: 2...12, using: &random), random: &random)
    let split = Int.random(in: 1...keys.count, using: &random)
    let (sets, removals) = (Array(keys[..<split]), Array(keys[split...]))
    say("begin \(op) batch \(sets.joined(separator: ",")) \(removals.isEmpty ? "-" : removals.joined(separator: ","))")
    try store.write { batch in
        for key in sets { try batch.set(CrashRecord(op: op), forKey: key) }
        for key in removals { batch.removeObject(forKey: key) }
    }
}

/// A bulk import of 2-4 chunks of 4 models; each chunk is its own operation, acknowledged
/// from the import's progress callback (called after the chunk was committed). Returns the
/// next operation number.
func importChunks(_ store: ModelStore, firstOp: Int, random: inout SeededGenerator) throws -> Int {
    let chunkCount = Int.random(in: 2...4, using: &random)
    let chunks = (0..<chunkCount).map { _ in randomKeys(4, random: &random) }
    let items = chunks.enumerated().flatMap { index, keys in
        keys.map { ImportItem(key: $0, record: CrashRecord(op: firstOp + index)) }
    }
    let line: @Sendable (Int) -> String = { index in
        "begin \(firstOp + index) import \(chunks[index].joined(separator: ","))"
    }
    say(line(0))
    try blocking {
        _ = try await store.importObjects(items, key: \.key, batchSize: 4) { progress in
            let done = progress.completed / 4
            say("ack \(firstOp + done - 1)")
            if done < chunkCount { say(line(done)) }
        }
    }
    return firstOp + chunkCount
}

/// A model for import that is stored as its ``CrashRecord``.
struct ImportItem: Encodable, Sendable {
    var key: String
    var record: CrashRecord
    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(record)
    }
}

/// Runs async work from this synchronous helper and waits for it.
func blocking(_ work: @escaping @Sendable () async throws -> Void) throws {
    final class Outcome: @unchecked Sendable {  // written by the task before the semaphore is signalled
        var error: (any Error)?
    }
    let outcome = Outcome()
    let done = DispatchSemaphore(value: 0)
    Task {
        do { try await work() } catch { outcome.error = error }
        done.signal()
    }
    done.wait()
    if let error = outcome.error { throw error }
}

func fillUntilFull(root: String, name: String, limit: Int) throws {
    signal(SIGXFSZ, SIG_IGN)  // get EFBIG from write(2) instead of being killed
    var limits = rlimit(rlim_cur: rlim_t(limit), rlim_max: rlim_t(limit))
    guard setrlimit(Int32(RLIMIT_FSIZE.rawValue), &limits) == 0 else { say("error setrlimit"); exit(1) }

    let store = try ModelStore(name: name, policy: .never, configuration: configuration(root: root))
    var random = SeededGenerator(seed: 7)
    var acked = 0
    while true {
        let value = Data((0..<8192).map { _ in UInt8.random(in: 0...255, using: &random) })  // incompressible
        do {
            try store.set(value, forKey: "k\(acked)")
            acked += 1
        } catch {
            say("acked \(acked)")
            say("failed \(caseName(error)) \(error)")
            break
        }
    }
    say("next-set \(errorCaseOf { try store.set(Data([1]), forKey: "after") })")
    say("next-remove \(errorCaseOf { try store.removeObject(forKey: "k0") })")
    let readable = (0..<acked).filter { (try? store.object(Data.self, forKey: "k\($0)")) != nil }.count
    say("readable \(readable)")
    try store.close()
}

func exhaustDescriptors(root: String, name: String, limit: Int) throws {
    var configuration = configuration(root: root)
    configuration.writeBufferSize = 64 << 10
    // Without a recorded policy: its key (0xFF 0x03, after every record) would stretch the
    // first table over every key, and its read at open would open a table before the read below.
    var unrecorded = configuration
    unrecorded.recordsPolicies = false
    do {  // a database whose records live in tables, closed so its table cache starts empty
        let big = try ModelStore(name: name, policy: .never, configuration: unrecorded)
        for index in 0..<2000 { try big.set(String(repeating: "v", count: 200), forKey: "k\(index)") }
        try big.close()
    }
    var limits = rlimit(rlim_cur: rlim_t(limit), rlim_max: rlim_t(limit))
    guard setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limits) == 0 else { say("error setrlimit"); exit(1) }

    let big = try ModelStore(name: name, policy: .never, configuration: unrecorded)
    var stores: [ModelStore] = []
    while stores.count < 1000 {
        do {
            stores.append(try ModelStore(name: "extra\(stores.count)", policy: .never, configuration: configuration))
        } catch {
            say("open-failed \(caseName(error)) after \(stores.count): \(error)")
            break
        }
    }
    // Take every descriptor left, then read a record whose table is not open yet.
    var spare: [Int32] = []
    while true {
        let fd = open("/dev/null", O_RDONLY)
        if fd < 0 { break }
        spare.append(fd)
    }
    say("read-failed \(errorCaseOf { _ = try big.object(String.self, forKey: "k0") })")
    func openAndClose(_ name: String) throws {
        try ModelStore(name: name, policy: .never, configuration: configuration).close()
    }
    say("open-starved \(errorCaseOf { try openAndClose("starved") })")
    for fd in spare { close(fd) }
    for store in stores { try store.close() }
    say("read-after \(errorCaseOf { _ = try big.object(String.self, forKey: "k0") })")
    say("open-after \(errorCaseOf { try openAndClose("late") })")
}

func openWithPolicy(root: String, name: String, policy: String, asNobody: Bool) {
    if asNobody {
        guard setgid(65534) == 0, setuid(65534) == 0 else { say("error cannot become nobody"); exit(1) }
    }
    var configuration = configuration(root: root)
    switch policy {
    case "repair": configuration.corruptionPolicy = .repair
    case "reset": configuration.corruptionPolicy = .reset
    default: configuration.corruptionPolicy = .fail
    }
    do {
        let store = try ModelStore(name: name, policy: .never, configuration: configuration)
        let count = (0..<100).filter { (try? store.contains("k\($0)")) == true }.count
        try store.close()
        say("ok \(count)")
    } catch {
        say("error \(caseName(error)) \(error)")
    }
}

/// "ok", or the error's case name and message.
func errorCaseOf(_ body: () throws -> Void) -> String {
    do {
        try body()
        return "ok"
    } catch {
        return "\(caseName(error)) \(error)"
    }
}
