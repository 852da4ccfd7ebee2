// Generated from README.md by scripts/extract-readme-snippets: do not edit; run the script.
// Every ```swift block of the README, compiled in the context ReadmeContext.swift supplies.
import Foundation
import ModelStore
import ModelStoreRedis

// README.md:48 is not compiled: Package.swift excerpt

// README.md:89
#sourceLocation(file: "README.md", line: 90)
import ModelStore

struct Book: Codable, Equatable { var name: String; var price: Double }
struct User: Codable, Equatable { var userName: String; var book: Book }
struct Item: Codable, Sendable { var id: Int; var title: String; var tags: [String] }
#sourceLocation()

extension ReadmeContext {
    /// README.md:97
    func readmeLine97() throws {
#sourceLocation(file: "README.md", line: 98)
        let user = User(userName: "ada", book: Book(name: "Notes on the Analytical Engine", price: 12.5))
        let store = try ModelStore(name: "userdb", policy: .low)          // records live 24 hours
        try store.set(user, forKey: "user")
        let cached: User? = try store.object(forKey: "user")              // nil if missing or expired
        let same = try store.object(User.self, forKey: "user")
        let entry = try store.entry(User.self, forKey: "user")            // value + storedAt + expiresAt
        try store.set(user, forKey: "session", expiresAfter: 30)          // this record lives 30 seconds
#sourceLocation()
    }
}

extension ReadmeContext {
    /// README.md:107
    func readmeLine107() throws {
#sourceLocation(file: "README.md", line: 108)
        try store.contains("user")                     // true unless missing or expired
        try store.removeObject(forKey: "user")
        try store.removeObjects(forKeys: ["a", "b"])   // one atomic write
        try store.removeObjects(withPrefix: "feed:")   // returns how many it removed
        try store.removeAllObjects()                   // and compacts, so the disk space comes back
        store.url                                      // the database's directory
        try store.close()                              // this instance is done; later calls throw `closed`
        try store.deleteFromDisk()                     // closes (every instance), then deletes

        try ModelStore.deleteDatabase(named: "userdb")                     // also `in: URL`
        try ModelStore.deleteAllDatabases()                                // also `in: URL`
        // In async code, `try await` either one: the async versions work off the caller's thread.
#sourceLocation()
    }
}

extension ReadmeContext {
    /// README.md:179
    func readmeLine179() throws {
#sourceLocation(file: "README.md", line: 180)
        if let stale = try store.entry(User.self, forKey: "user", includingExpired: true) {
            show(stale.value, outdated: stale.isExpired)
        }
#sourceLocation()
    }
}

extension ReadmeContext {
    /// README.md:187
    func readmeLine187() throws {
#sourceLocation(file: "README.md", line: 188)
        var configuration = ModelStore.Configuration()
        configuration.directory = URL(fileURLWithPath: "/var/cache/myapp")   // the root
        configuration.now = { Date() }                   // the clock; tests inject their own
        configuration.codec = JSONModelCodec()           // or BinaryModelCodec(), PropertyListModelCodec(), your own
        configuration.syncWrites = false                 // true: every write waits for the disk
        configuration.objectCacheLimit = 1_000           // decoded models kept in memory (0: off, the default)
        configuration.automaticSweepInterval = 600       // sweep expired records every 10 minutes (nil: off)
        configuration.maximumRecordCount = 100_000       // evict beyond this many records (nil: no limit)
        configuration.maximumTotalBytes = 500 << 20      // …and beyond 500 MiB of records (nil: no limit)
        configuration.eviction = .leastRecentlyUsed      // what goes first: the least used (default) or .oldestWritten
        configuration.blockCacheSize = 8 << 20           // LevelDB tuning: block cache, write buffer,
        configuration.writeBufferSize = 16 << 20         // bloom filter bits (10), paranoid checks (on),
        configuration.bloomFilterBitsPerKey = 10         // read checksums (on), open files, block size
        configuration.usesSnappyCompression = false      // true: about half the disk, slower random reads
        configuration.recordCompression = .none          // .zstd(): each model compressed with a trained dictionary
        configuration.encryption = .none                 // .aes256GCM(key:) with the Encryption trait: see below
        let store = try ModelStore(name: "users", policy: .low, configuration: configuration)
#sourceLocation()
    }
}

extension ReadmeContext {
    /// README.md:243
    func readmeLine243() throws {
#sourceLocation(file: "README.md", line: 244)
        let snapshot = try items.snapshot()                       // a consistent, read-only view
        try items.write { batch in                                // all or nothing
            try batch.set(Item(id: 1, title: "Renamed", tags: []), forKey: "1")
            batch.removeObject(forKey: "2")
        }
        let before = try snapshot.object(Item.self, forKey: "1")  // still "Item 1"
        let after = try items.object(Item.self, forKey: "1")      // "Renamed"
#sourceLocation()
    }
}

extension ReadmeContext {
    /// README.md:262
    func readmeLine262() async throws {
#sourceLocation(file: "README.md", line: 263)
        let items = try ModelStore(name: "items", policy: .lowest)        // records live 7 days
        let models = (0..<100_000).lazy.map { Item(id: $0, title: "Item \($0)", tags: ["demo"]) }
        let report = try await items.importObjects(models, key: \.id, batchSize: 1_000) { progress in
            bar.update(progress)
        }
#sourceLocation()
    }
}

extension ReadmeContext {
    /// README.md:286
    func readmeLine286() throws {
#sourceLocation(file: "README.md", line: 287)
        let firstTen = try items.keys(in: .prefix("9999"), limit: 10).collect()
        let cursor = try items.entries(Item.self, in: .range(from: "4242", to: "42421"))  // "4242", "42420"
        while let entry = try cursor.next() {
            print(entry.key, entry.value.title)
        }
#sourceLocation()
    }
}

extension ReadmeContext {
    /// README.md:303
    func readmeLine303() async throws {
#sourceLocation(file: "README.md", line: 304)
        for try await entry in try items.entries(Item.self, in: .prefix("4242")) {
            print(entry.key, entry.value.title)
        }
#sourceLocation()
    }
}

extension ReadmeContext {
    /// README.md:314
    func readmeLine314() throws {
#sourceLocation(file: "README.md", line: 315)
        try store.count()                                   // live records (reads headers only)
        try store.count(in: .prefix("feed:"))
        try store.objects(User.self, forKeys: ["u1", "u2"]) // [String: User] from one consistent view
        try store.entries(User.self, forKeys: ["u1", "u2"]) // [Entry<User>] in the order asked
        try store.approximateSize()                         // bytes on disk, LevelDB's estimate
        try store.statistics()                              // LevelDB's leveldb.stats report
        try store.compact()                                 // give space from removed records back
#sourceLocation()
    }
}

extension ReadmeContext {
    /// README.md:336
    func readmeLine336() throws {
#sourceLocation(file: "README.md", line: 337)
        let removed = try store.removeExpiredObjects()      // how many it removed
#sourceLocation()
    }
}

extension ReadmeContext {
    /// README.md:393
    func readmeLine393() async throws {
#sourceLocation(file: "README.md", line: 394)
        let user = try await store.object(User.self, forKey: "user:42") {
            try await api.fetchUser(42)            // runs on a miss or when the record has expired
        }
        let offlineFriendly = try await store.object(User.self, forKey: "user:42", staleIfError: true) {
            try await api.fetchUser(42)            // if this throws, an expired record is returned instead
        }
#sourceLocation()
    }
}

extension ReadmeContext {
    /// README.md:417
    func readmeLine417() async throws {
#sourceLocation(file: "README.md", line: 418)
        var options = ReadThroughOptions()
        options.lifetime = 300                    // fetched models live 5 min unless the fetch says otherwise
        options.staleIfError = 3_600              // fail-safe: serve up to 1 h past expiry when the fetch fails
        options.softTimeout = .milliseconds(50)   // with a usable stale record, stop waiting after 50 ms
        options.hardTimeout = .seconds(2)         // never wait more than 2 s
        options.refreshAhead = 0.8                // after 80 % of the lifetime, refresh in the background
        options.notFoundLifetime = 30             // remember .notFound for 30 s
        options.failSafeThrottle = 10             // after a failed fetch served stale, serve it 10 s without fetching

        let user: User? = try await store.object(User.self, forKey: "user:42", options: options) { previous in
            let etag = try previous?.metadata(HTTPInfo.self)?.etag
            switch try await api.user(42, ifNoneMatch: etag) {
            case let .ok(user, etag, maxAge): return .value(user, expiresAfter: maxAge, metadata: HTTPInfo(etag: etag))
            case let .notModified(maxAge):    return .notModified(expiresAfter: maxAge)
            case .notFound:                   return .notFound
            }
        }
#sourceLocation()
    }
}

extension ReadmeContext {
    /// README.md:460
    func readmeLine460() async throws {
#sourceLocation(file: "README.md", line: 461)
        let fetched = try await store.object(User.self, forKey: "user:42", options: ReadThroughOptions()) { _ in
            .value(try await api.fetchUser(42), expiresAfter: 300, tags: ["team:7"])
        }
        let tags = try store.entry(User.self, forKey: "user:42")?.tags   // ["team:7"]
#sourceLocation()
    }
}

extension ReadmeContext {
    /// README.md:487
    func readmeLine487() throws {
#sourceLocation(file: "README.md", line: 488)
        try store.set(user, forKey: "user:42", tags: ["team:7", "org:1"])   // also expiresAfter:, metadata:, and in batches
        try store.collection("users").set(user, forKey: "42", tags: ["team:7"])
        let removed = try store.removeObjects(taggedWith: "team:7")         // live records removed, every collection
        let tags = try store.entry(User.self, forKey: "user:42")?.tags      // what a record carries, [] for none
#sourceLocation()
    }
}

extension ReadmeContext {
    /// README.md:509
    func readmeLine509() async throws {
#sourceLocation(file: "README.md", line: 510)
        let changes = store.changes()              // before the writes you want to see
        let observer = Task {
            for await change in changes {
                print(change.key, change.kind)     // .set, .removed, .expired or .evicted
            }
        }
        try store.set(user, forKey: "user:1")      // seen by the observer
#sourceLocation()
    }
}

extension ReadmeContext {
    /// README.md:529
    func readmeLine529() throws {
#sourceLocation(file: "README.md", line: 530)
        let users = store.collection("users")                        // cheap: no I/O
        let sessions = store.collection("sessions", policy: .highest)  // records stamped with a 10 s deadline
        try users.set(user, forKey: "42")
        let same = try users.object(User.self, forKey: "42")
        let newest = try users.keys(in: .prefix("4"), reverse: true, limit: 10).collect()
        try users.removeObjects(withPrefix: "4")                     // how many live records it removed
        try store.write { batch in                                   // one atomic write across collections
            try batch.set(user, forKey: "42", in: "users")
            batch.removeObject(forKey: "7", in: "sessions")
        }
        let old = try store.snapshot().collection("users").object(User.self, forKey: "42")
        let names = try store.collectionNames()                      // ["users"]: sessions holds no record
#sourceLocation()
    }
}

// README.md:578
#sourceLocation(file: "README.md", line: 579)
struct HTTPInfo: Codable, Sendable {
    var etag: String
    var lastModified: String?
}
#sourceLocation()

extension ReadmeContext {
    /// README.md:585
    func readmeLine585() throws {
#sourceLocation(file: "README.md", line: 586)
        try store.set(user, forKey: "u1", metadata: HTTPInfo(etag: "\"abc\""))
        try store.set(user, forKey: "u1", expiresAfter: 60, metadata: HTTPInfo(etag: "\"abc\""))
        let info = try store.metadata(HTTPInfo.self, forKey: "u1")   // nil: missing, expired or none stored
        let entry = try store.entry(User.self, forKey: "u1")
        let same = try entry?.metadata(HTTPInfo.self)                 // decoded on demand
        let replaced = try store.replaceMetadata(HTTPInfo(etag: "\"def\""), forKey: "u1")  // false if missing or expired
        let refreshed = try store.refresh(forKey: "u1")               // a 304 Not Modified: the lifetime restarts now
        try store.write { batch in try batch.set(user, forKey: "u2", metadata: HTTPInfo(etag: "\"xyz\"")) }
#sourceLocation()
    }
}

extension ReadmeContext {
    /// README.md:616
    func readmeLine616() throws {
#sourceLocation(file: "README.md", line: 617)
        let backupURL = URL(fileURLWithPath: "/backups/userdb-monday")
        let report = try store.backup(to: backupURL) { progress in   // progress is optional
            print(progress.records, progress.bytes, progress.estimatedTotalBytes ?? 0)
        }
        print(report)   // "120000 records and 1 entry of ModelStore's own, 49.8 MB in 0.61 s to /backups/userdb-monday"

        try ModelStore.restore(from: backupURL, named: "userdb-restored")
        try ModelStore.restore(from: backupURL, named: "userdb", replacingExisting: true)
#sourceLocation()
    }
}

// README.md:671 is not compiled: needs the Encryption trait; EncryptionRoundTripTests.readmeExample compiles the same calls

// README.md:741
#sourceLocation(file: "README.md", line: 742)
struct Post: Codable, Sendable {
    var author: String
    var createdAt: Date
    var tags: [String]
}
#sourceLocation()

extension ReadmeContext {
    /// README.md:749
    func readmeLine749() throws {
#sourceLocation(file: "README.md", line: 750)
        let posts = store.collection("posts")
        // Call these each time the store opens, before writing: indexers are code.
        try posts.defineIndex("byAuthor", of: Post.self, version: 1) { post in [.string(post.author)] }
        try posts.defineIndex("byTime", of: Post.self, version: 1) { post in [.date(post.createdAt)] }
        try posts.defineIndex("byTag", of: Post.self, version: 1) { post in post.tags.map { .string($0) } }  // many values

        let mine = try posts.entries(Post.self, where: "byAuthor", equals: .string("ada")).collect()
        let since = Date().addingTimeInterval(-86_400)
        let recent = try posts.entries(Post.self, where: "byTime",
                                       in: .date(since) ..< .date(.distantFuture), reverse: true, limit: 20)
        let keys = try posts.keys(where: "byTag", equals: .string("swift"))           // Cursor<String>
        let n = try posts.count(where: "byAuthor", equals: .string("ada"))
        try posts.dropIndex("byTag")
#sourceLocation()
    }
}

extension ReadmeContext {
    /// README.md:840
    func readmeLine840() throws {
#sourceLocation(file: "README.md", line: 841)
        do {
            let store = try ModelStore(name: "users", policy: .low)
            _ = try store.object(User.self, forKey: "user")
        } catch ModelStoreError.locked {
            print("Another process has the database open.")
        } catch let ModelStoreError.decodingFailed(key, type, message) {
            print("\(key) is not a \(type): \(message)")
        }
#sourceLocation()
    }
}

// README.md:1352 is not compiled: compiled in Integrations with the Hummingbird trait (scripts/extract-driver-snippets)

// README.md:1379 is not compiled: compiled in Integrations with the Hummingbird trait (scripts/extract-driver-snippets)

// README.md:1415 is not compiled: compiled in Integrations with the Hummingbird trait (scripts/extract-driver-snippets)

// README.md:1452 is not compiled: compiled in Integrations with the Vapor trait (scripts/extract-driver-snippets)

// README.md:1477 is not compiled: compiled in Integrations with the Vapor trait (scripts/extract-driver-snippets)

extension ReadmeContext {
    /// README.md:1548
    func readmeLine1548() throws {
#sourceLocation(file: "README.md", line: 1549)
        let tier = try RedisTier(host: "127.0.0.1", port: 6379, keyPrefix: "myapp:")
        var configuration = ModelStore.Configuration()
        configuration.sharedTier = tier            // (any SharedTier)?, nil by default: no shared tier
        let users = try ModelStore(name: "users", policy: .low, configuration: configuration)
#sourceLocation()
    }
}
