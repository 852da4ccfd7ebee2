import Foundation
import ModelStore
import ModelStoreRedis

// Tier hits (or misses) in one loop, for an instruction profile of the Redis read path
// (issue 37): `modelstore-bench fleet` cannot run under Valgrind (its Dispatch main loop), this
// can. Against a redis-server the caller started:
//
//     redis-server --port 16399 --save '' --appendonly no &
//     swift build -c release --product fleet-hit-profile
//     valgrind --tool=callgrind --toggle-collect='*measuredReads*' \
//         .build/release/fleet-hit-profile 16399 /tmp/profile-dir hit [profile|session]
//
// (Valgrind 3.19 cannot read Swift's DWARF 5: `objcopy --strip-debug` the binary first.)
//
// One node writes 2,000 records through its tier; a second node, on a fresh directory, reads
// each once (`hit`: from Redis, as its local store misses) or reads keys no one wrote (`miss`).
// The records are ``Profile``s (about 420 bytes stored, the default) or ``Session``s (about 130):
// the difference between the two is the model's decode, the rest is the tier's.
// Only `measuredReads` is counted; it prints the µs per read too (noisy: one run).

let arguments = CommandLine.arguments
guard (4...5).contains(arguments.count), let port = Int(arguments[1]), ["hit", "miss"].contains(arguments[3]),
    ["profile", "session"].contains(arguments.count == 5 ? arguments[4] : "profile")
else {
    print("usage: fleet-hit-profile PORT DIRECTORY hit|miss [profile|session]")
    exit(2)
}
let sessions = arguments.count == 5 && arguments[4] == "session"
let directory = arguments[2]
let count = 2_000
let corpus = ProfileCorpus(count: count)
let prefix = "profile\(getpid()):"

func node(_ name: String, tier: RedisTier) throws -> ModelStore {
    var configuration = ModelStore.Configuration()
    configuration.directory = URL(fileURLWithPath: directory + "/" + name, isDirectory: true)
    configuration.objectCacheLimit = 0
    configuration.sharedTier = tier
    return try ModelStore(name: "profile", policy: .never, configuration: configuration)
}

/// The reads counted: one `object(_:forKey:)` per key.
@inline(never) func measuredReads<Model: Codable>(_ store: ModelStore, _ keys: [String], as model: Model.Type) throws -> Int {
    var found = 0
    for key in keys where try store.object(Model.self, forKey: key) != nil { found += 1 }
    return found
}

let writerTier = try RedisTier(host: "127.0.0.1", port: port, keyPrefix: prefix)
let readerTier = try RedisTier(host: "127.0.0.1", port: port, keyPrefix: prefix)
let writer = try node("writer", tier: writerTier)
try writer.write { batch in
    let sessionCorpus = SessionCorpus()
    for number in 0..<count {
        if sessions {
            try batch.set(sessionCorpus.session(number), forKey: ProfileCorpus.key(number))
        } else {
            try batch.set(corpus.profile(number), forKey: ProfileCorpus.key(number))
        }
    }
}
var keys = (0..<count).map { ProfileCorpus.key($0) }.shuffled()
if arguments[3] == "miss" { keys = keys.map { $0 + "-missing" } }
let reader = try node("reader", tier: readerTier)
// The attachment's first round trips (the database's generation, the tag clocks) come first.
_ = try reader.object(Profile.self, forKey: "warm-up")
let start = DispatchTime.now().uptimeNanoseconds
let found = try sessions ? measuredReads(reader, keys, as: Session.self) : measuredReads(reader, keys, as: Profile.self)
let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / Double(count) / 1000
print(String(format: "%@: %d of %d found, %.1f µs per read", arguments[3], found, count, elapsed))
try reader.close()
try writer.close()
readerTier.shutdown()
writerTier.shutdown()
