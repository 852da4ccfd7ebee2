// Generated from README.md and the DocC articles by scripts/extract-readme-snippets: do not
// edit; run the script. Every ```swift block of those documents, compiled in the context
// ReadmeContext.swift supplies.
import Foundation
import ModelStore
import ModelStoreRedis

// README.md:48 is not compiled: Package.swift excerpt

// README.md:68
#sourceLocation(file: "README.md", line: 69)
import ModelStore

struct Book: Codable, Equatable { var name: String; var price: Double }
struct User: Codable, Equatable { var userName: String; var book: Book }
struct Item: Codable, Sendable { var id: Int; var title: String; var tags: [String] }
#sourceLocation()

extension ReadmeContext {
    /// README.md:76
    func readmeLine76() throws {
#sourceLocation(file: "README.md", line: 77)
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
    /// README.md:86
    func readmeLine86() throws {
#sourceLocation(file: "README.md", line: 87)
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
    /// README.md:133
    func readmeLine133() throws {
#sourceLocation(file: "README.md", line: 134)
        if let stale = try store.entry(User.self, forKey: "user", includingExpired: true) {
            show(stale.value, outdated: stale.isExpired)
        }
#sourceLocation()
    }
}

extension ReadmeContext {
    /// README.md:141
    func readmeLine141() throws {
#sourceLocation(file: "README.md", line: 142)
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
    /// README.md:173
    func readmeLine173() throws {
#sourceLocation(file: "README.md", line: 174)
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
    /// README.md:189
    func readmeLine189() async throws {
#sourceLocation(file: "README.md", line: 190)
        let items = try ModelStore(name: "items", policy: .lowest)        // records live 7 days
        let models = (0..<100_000).lazy.map { Item(id: $0, title: "Item \($0)", tags: ["demo"]) }
        let report = try await items.importObjects(models, key: \.id, batchSize: 1_000) { progress in
            bar.update(progress)
        }
#sourceLocation()
    }
}

extension ReadmeContext {
    /// README.md:205
    func readmeLine205() throws {
#sourceLocation(file: "README.md", line: 206)
        let firstTen = try items.keys(in: .prefix("9999"), limit: 10).collect()
        let cursor = try items.entries(Item.self, in: .range(from: "4242", to: "42421"))  // "4242", "42420"
        while let entry = try cursor.next() {
            print(entry.key, entry.value.title)
        }
#sourceLocation()
    }
}

extension ReadmeContext {
    /// README.md:220
    func readmeLine220() async throws {
#sourceLocation(file: "README.md", line: 221)
        for try await entry in try items.entries(Item.self, in: .prefix("4242")) {
            print(entry.key, entry.value.title)
        }
#sourceLocation()
    }
}

extension ReadmeContext {
    /// README.md:228
    func readmeLine228() throws {
#sourceLocation(file: "README.md", line: 229)
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
    /// README.md:244
    func readmeLine244() throws {
#sourceLocation(file: "README.md", line: 245)
        let removed = try store.removeExpiredObjects()      // how many it removed
#sourceLocation()
    }
}

extension ReadmeContext {
    /// README.md:270
    func readmeLine270() async throws {
#sourceLocation(file: "README.md", line: 271)
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
    /// README.md:290
    func readmeLine290() async throws {
#sourceLocation(file: "README.md", line: 291)
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
    /// README.md:322
    func readmeLine322() throws {
#sourceLocation(file: "README.md", line: 323)
        try store.set(user, forKey: "user:42", tags: ["team:7", "org:1"])   // also expiresAfter:, metadata:, and in batches
        try store.collection("users").set(user, forKey: "42", tags: ["team:7"])
        let removed = try store.removeObjects(taggedWith: "team:7")         // live records removed, every collection
        let tags = try store.entry(User.self, forKey: "user:42")?.tags      // what a record carries, [] for none
#sourceLocation()
    }
}

extension ReadmeContext {
    /// README.md:337
    func readmeLine337() async throws {
#sourceLocation(file: "README.md", line: 338)
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
    /// README.md:356
    func readmeLine356() throws {
#sourceLocation(file: "README.md", line: 357)
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

// README.md:384
#sourceLocation(file: "README.md", line: 385)
struct HTTPInfo: Codable, Sendable {
    var etag: String
    var lastModified: String?
}
#sourceLocation()

extension ReadmeContext {
    /// README.md:391
    func readmeLine391() throws {
#sourceLocation(file: "README.md", line: 392)
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
    /// README.md:410
    func readmeLine410() throws {
#sourceLocation(file: "README.md", line: 411)
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

// README.md:440 is not compiled: needs the Encryption trait; EncryptionRoundTripTests.readmeExample compiles the same calls

// README.md:476
#sourceLocation(file: "README.md", line: 477)
struct Post: Codable, Sendable {
    var author: String
    var createdAt: Date
    var tags: [String]
}
#sourceLocation()

extension ReadmeContext {
    /// README.md:484
    func readmeLine484() throws {
#sourceLocation(file: "README.md", line: 485)
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
    /// README.md:527
    func readmeLine527() throws {
#sourceLocation(file: "README.md", line: 528)
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

// README.md:674 is not compiled: compiled in Integrations with the Hummingbird trait (scripts/extract-driver-snippets)

// README.md:701 is not compiled: compiled in Integrations with the Hummingbird trait (scripts/extract-driver-snippets)

// README.md:737 is not compiled: compiled in Integrations with the Hummingbird trait (scripts/extract-driver-snippets)

// README.md:758 is not compiled: compiled in Integrations with the Vapor trait (scripts/extract-driver-snippets)

// README.md:783 is not compiled: compiled in Integrations with the Vapor trait (scripts/extract-driver-snippets)

extension ReadmeContext {
    /// README.md:819
    func readmeLine819() throws {
#sourceLocation(file: "README.md", line: 820)
        let tier = try RedisTier(host: "127.0.0.1", port: 6379, keyPrefix: "myapp:")
        var configuration = ModelStore.Configuration()
        configuration.sharedTier = tier            // (any SharedTier)?, nil by default: no shared tier
        let users = try ModelStore(name: "users", policy: .low, configuration: configuration)
#sourceLocation()
    }
}

extension ReadmeContext {
    /// Sources/ModelStore/ModelStore.docc/BackupsAndInspection.md:13
    func articleBackupsAndInspectionLine13() throws {
#sourceLocation(file: "Sources/ModelStore/ModelStore.docc/BackupsAndInspection.md", line: 14)
        let store = try ModelStore(name: "userdb", policy: .low)
        let backupURL = URL(fileURLWithPath: "/backups/userdb-monday")
        let report = try store.backup(to: backupURL)
        print(report)   // 120000 records and 1 entry of ModelStore's own, 49.8 MB in 0.61 s to /backups/userdb-monday

        // Later, or on another machine:
        try ModelStore.restore(from: backupURL, named: "userdb", replacingExisting: true)
#sourceLocation()
    }
}

extension ReadmeContext {
    /// Sources/ModelStore/ModelStore.docc/BatchesSnapshotsAndImport.md:7
    func articleBatchesSnapshotsAndImportLine7() throws {
#sourceLocation(file: "Sources/ModelStore/ModelStore.docc/BatchesSnapshotsAndImport.md", line: 8)
        try store.write { batch in
            try batch.set(user, forKey: "u1")
            try batch.set(session, forKey: "s1", expiresAfter: 30)
            batch.removeObject(forKey: "u2")
        }
#sourceLocation()
    }
}

extension ReadmeContext {
    /// Sources/ModelStore/ModelStore.docc/BatchesSnapshotsAndImport.md:21
    func articleBatchesSnapshotsAndImportLine21() throws {
#sourceLocation(file: "Sources/ModelStore/ModelStore.docc/BatchesSnapshotsAndImport.md", line: 22)
        let snapshot = try store.snapshot()
        let u = try snapshot.object(User.self, forKey: "u1")
#sourceLocation()
    }
}

extension ReadmeContext {
    /// Sources/ModelStore/ModelStore.docc/BatchesSnapshotsAndImport.md:34
    func articleBatchesSnapshotsAndImportLine34() async throws {
#sourceLocation(file: "Sources/ModelStore/ModelStore.docc/BatchesSnapshotsAndImport.md", line: 35)
        let report = try await store.importObjects(users, key: \.id, batchSize: 1_000) { progress in
            print(progress.completed, progress.total ?? 0)
        }
#sourceLocation()
    }
}

extension ReadmeContext {
    /// Sources/ModelStore/ModelStore.docc/BatchesSnapshotsAndImport.md:54
    func articleBatchesSnapshotsAndImportLine54() throws {
#sourceLocation(file: "Sources/ModelStore/ModelStore.docc/BatchesSnapshotsAndImport.md", line: 55)
        let cursor = try store.entries(User.self, in: .prefix("user:"), reverse: true)
        while let entry = try cursor.next() { print(entry.key) }
#sourceLocation()
    }
}

extension ReadmeContext {
    /// Sources/ModelStore/ModelStore.docc/BatchesSnapshotsAndImport.md:66
    func articleBatchesSnapshotsAndImportLine66() async throws {
#sourceLocation(file: "Sources/ModelStore/ModelStore.docc/BatchesSnapshotsAndImport.md", line: 67)
        for try await entry in try store.entries(User.self, in: .prefix("user:")) {
            print(entry.key)
        }
#sourceLocation()
    }
}

extension ReadmeContext {
    /// Sources/ModelStore/ModelStore.docc/CachingServerFetchedModels.md:17
    func articleCachingServerFetchedModelsLine17() async throws {
#sourceLocation(file: "Sources/ModelStore/ModelStore.docc/CachingServerFetchedModels.md", line: 18)
        struct HTTPInfo: Codable, Sendable { var etag: String }

        var options = ReadThroughOptions()
        options.lifetime = 300
        options.staleIfError = 3_600
        options.softTimeout = .milliseconds(50)
        options.hardTimeout = .seconds(2)
        options.refreshAhead = 0.8
        options.notFoundLifetime = 30
        options.failSafeThrottle = 10

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
    /// Sources/ModelStore/ModelStore.docc/CachingServerFetchedModels.md:146
    func articleCachingServerFetchedModelsLine146() throws {
#sourceLocation(file: "Sources/ModelStore/ModelStore.docc/CachingServerFetchedModels.md", line: 147)
        try store.set(user, forKey: "user:42", tags: ["team:7", "org:1"])
        try store.collection("users").set(user, forKey: "42", tags: ["team:7"])
        let removed = try store.removeObjects(taggedWith: "team:7")    // both records
#sourceLocation()
    }
}

extension ReadmeContext {
    /// Sources/ModelStore/ModelStore.docc/CachingServerFetchedModels.md:171
    func articleCachingServerFetchedModelsLine171() async throws {
#sourceLocation(file: "Sources/ModelStore/ModelStore.docc/CachingServerFetchedModels.md", line: 172)
        let user = try await store.object(User.self, forKey: "user:42", options: options) { _ in
            let response = try await api.user(42)
            return .value(response.user, tags: ["team:\(response.teamID)"])
        }
#sourceLocation()
    }
}

extension ReadmeContext {
    /// Sources/ModelStore/ModelStore.docc/CollectionsAndMetadata.md:12
    func articleCollectionsAndMetadataLine12() throws {
#sourceLocation(file: "Sources/ModelStore/ModelStore.docc/CollectionsAndMetadata.md", line: 13)
        let users = store.collection("users")                          // cheap: no I/O, never throws
        let sessions = store.collection("sessions", policy: .highest)
        try users.set(user, forKey: "42")
        let same = try users.object(User.self, forKey: "42")
        try users.removeObjects(withPrefix: "4")                        // how many live records it removed
        try store.write { batch in                                      // one atomic write across collections
            try batch.set(user, forKey: "42", in: "users")
            batch.removeObject(forKey: "7", in: "sessions")
        }
        let old = try store.snapshot().collection("users").object(User.self, forKey: "42")
#sourceLocation()
    }
}

extension ReadmeContext {
    /// Sources/ModelStore/ModelStore.docc/CollectionsAndMetadata.md:90
    func articleCollectionsAndMetadataLine90() throws {
#sourceLocation(file: "Sources/ModelStore/ModelStore.docc/CollectionsAndMetadata.md", line: 91)
        struct HTTPInfo: Codable, Sendable {
            var etag: String
            var lastModified: String?
        }

        try store.set(user, forKey: "u1", metadata: HTTPInfo(etag: "\"abc\""))
        try store.set(user, forKey: "u1", expiresAfter: 60, metadata: HTTPInfo(etag: "\"abc\""))
#sourceLocation()
    }
}

extension ReadmeContext {
    /// Sources/ModelStore/ModelStore.docc/CollectionsAndMetadata.md:108
    func articleCollectionsAndMetadataLine108() throws {
#sourceLocation(file: "Sources/ModelStore/ModelStore.docc/CollectionsAndMetadata.md", line: 109)
        if let info = try store.metadata(HTTPInfo.self, forKey: "u1") {
            request.setValue(info.etag, forHTTPHeaderField: "If-None-Match")
        }
        let entry = try store.entry(User.self, forKey: "u1")
        let same = try entry?.metadata(HTTPInfo.self)
#sourceLocation()
    }
}

extension ReadmeContext {
    /// Sources/ModelStore/ModelStore.docc/CollectionsAndMetadata.md:129
    func articleCollectionsAndMetadataLine129() async throws {
#sourceLocation(file: "Sources/ModelStore/ModelStore.docc/CollectionsAndMetadata.md", line: 130)
        if let info = try store.metadata(HTTPInfo.self, forKey: "u1") {
            let response = try await api.revalidate(etag: info.etag)
            if response.notModified {
                try store.refresh(forKey: "u1", metadata: HTTPInfo(etag: response.etag))
            }
        }
#sourceLocation()
    }
}

// Sources/ModelStore/ModelStore.docc/EncryptionAtRest.md:17 is not compiled: imports Crypto, which needs the Encryption trait; EncryptionRoundTripTests.readmeExample compiles the same calls

// Sources/ModelStore/ModelStore.docc/EncryptionAtRest.md:75 is not compiled: needs the Encryption trait; the rekey tests make the same calls

extension ReadmeContext {
    /// Sources/ModelStore/ModelStore.docc/EvictionByUse.md:9
    func articleEvictionByUseLine9() throws {
#sourceLocation(file: "Sources/ModelStore/ModelStore.docc/EvictionByUse.md", line: 10)
        var configuration = ModelStore.Configuration()
        configuration.maximumTotalBytes = 512 << 20        // record bytes: keys plus stored values
        configuration.maximumRecordCount = 1_000_000
        configuration.eviction = .leastRecentlyUsed        // the default; or .oldestWritten
        let store = try ModelStore(name: "images", policy: .high, configuration: configuration)
#sourceLocation()
    }
}

// Sources/ModelStore/ModelStore.docc/GettingStarted.md:23 is not compiled: declares the models the README's tour declares; ReadmeContext.swift compiles that block

extension ReadmeContext {
    /// Sources/ModelStore/ModelStore.docc/GettingStarted.md:38
    func articleGettingStartedLine38() throws {
#sourceLocation(file: "Sources/ModelStore/ModelStore.docc/GettingStarted.md", line: 39)
        try store.set(user, forKey: "user")
        let cached: User? = try store.object(forKey: "user")          // nil if missing or expired
        if let entry = try store.entry(User.self, forKey: "user") {
            print(entry.storedAt, entry.expiresAt ?? "never")
        }
        try store.removeObject(forKey: "user")
#sourceLocation()
    }
}

extension ReadmeContext {
    /// Sources/ModelStore/ModelStore.docc/GettingStarted.md:53
    func articleGettingStartedLine53() async throws {
#sourceLocation(file: "Sources/ModelStore/ModelStore.docc/GettingStarted.md", line: 54)
        let user = try await store.object(User.self, forKey: "user:42") {
            try await api.fetchUser(42)
        }
#sourceLocation()
    }
}

extension ReadmeContext {
    /// Sources/ModelStore/ModelStore.docc/GettingStarted.md:64
    func articleGettingStartedLine64() throws {
#sourceLocation(file: "Sources/ModelStore/ModelStore.docc/GettingStarted.md", line: 65)
        var configuration = ModelStore.Configuration()
        configuration.directory = URL(fileURLWithPath: "/var/cache/myapp")
        configuration.objectCacheLimit = 1_000
        let store = try ModelStore(name: "users", policy: .middle, configuration: configuration)
#sourceLocation()
    }
}

extension ReadmeContext {
    /// Sources/ModelStore/ModelStore.docc/GettingStarted.md:85
    func articleGettingStartedLine85() async throws {
#sourceLocation(file: "Sources/ModelStore/ModelStore.docc/GettingStarted.md", line: 86)
        try store.deleteFromDisk()                          // this database
        try await ModelStore.deleteAllDatabases()           // every ModelStore database in the root
#sourceLocation()
    }
}

extension ReadmeContext {
    /// Sources/ModelStore/ModelStore.docc/Migration.md:21
    func articleMigrationLine21() throws {
#sourceLocation(file: "Sources/ModelStore/ModelStore.docc/Migration.md", line: 22)
        struct User: Codable {
            var userName: String
            var isAdmin: Bool

            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: CodingKeys.self)
                userName = try container.decode(String.self, forKey: .userName)
                isAdmin = try container.decodeIfPresent(Bool.self, forKey: .isAdmin) ?? false
            }
        }
#sourceLocation()
    }
}

extension ReadmeContext {
    /// Sources/ModelStore/ModelStore.docc/Migration.md:39
    func articleMigrationLine39() throws {
#sourceLocation(file: "Sources/ModelStore/ModelStore.docc/Migration.md", line: 40)
        struct UserV1: Codable { var name: String }
        struct User: Codable { var userName: String }

        let old = try store.entries(UserV1.self)
        try store.write { batch in
            while let entry = try old.next() {
                try batch.set(User(userName: entry.value.name), forKey: entry.key)
            }
        }
#sourceLocation()
    }
}

extension ReadmeContext {
    /// Sources/ModelStore/ModelStore.docc/ModelStore.md:11
    func articleModelStoreLine11() throws {
#sourceLocation(file: "Sources/ModelStore/ModelStore.docc/ModelStore.md", line: 12)
        let store = try ModelStore(name: "userdb", policy: .low)     // records live 24 hours
        try store.set(user, forKey: "user")
        let cached = try store.object(User.self, forKey: "user")     // nil if missing or expired
#sourceLocation()
    }
}

extension ReadmeContext {
    /// Sources/ModelStore/ModelStore.docc/ReadThroughAndChanges.md:12
    func articleReadThroughAndChangesLine12() async throws {
#sourceLocation(file: "Sources/ModelStore/ModelStore.docc/ReadThroughAndChanges.md", line: 13)
        let user = try await store.object(User.self, forKey: "user:42") {
            try await api.fetchUser(42)
        }
#sourceLocation()
    }
}

// Sources/ModelStore/ModelStore.docc/ReadThroughAndChanges.md:45 is not compiled: a sketch of the app's client: its method body is elided

// Sources/ModelStore/ModelStore.docc/ReadThroughAndChanges.md:59 is not compiled: compiled and run by the UserCodeCompileTests suite

extension ReadmeContext {
    /// Sources/ModelStore/ModelStore.docc/ReadThroughAndChanges.md:87
    func articleReadThroughAndChangesLine87() throws {
#sourceLocation(file: "Sources/ModelStore/ModelStore.docc/ReadThroughAndChanges.md", line: 88)
        let changes = store.changes()       // subscribe first: the stream sees every later write
        let observer = Task {
            for await change in changes {
                print(change.key, change.kind)   // user:1 set
            }
        }
        try store.set(user, forKey: "user:1")
#sourceLocation()
    }
}

extension ReadmeContext {
    /// Sources/ModelStore/ModelStore.docc/RunningAFleet.md:14
    func articleRunningAFleetLine14() throws {
#sourceLocation(file: "Sources/ModelStore/ModelStore.docc/RunningAFleet.md", line: 15)
        let tier = try RedisTier(host: "127.0.0.1", port: 6379, keyPrefix: "myapp:")
        var configuration = ModelStore.Configuration()
        configuration.sharedTier = tier            // (any SharedTier)?, nil by default: no shared tier
        let users = try ModelStore(name: "users", policy: .low, configuration: configuration)
#sourceLocation()
    }
}

extension ReadmeContext {
    /// Sources/ModelStore/ModelStore.docc/SecondaryIndexes.md:13
    func articleSecondaryIndexesLine13() throws {
#sourceLocation(file: "Sources/ModelStore/ModelStore.docc/SecondaryIndexes.md", line: 14)
        let posts = store.collection("posts")
        try posts.defineIndex("byAuthor", of: Post.self, version: 1) { post in [.string(post.author)] }
        try posts.defineIndex("byTime", of: Post.self, version: 1) { post in [.date(post.createdAt)] }
        try posts.defineIndex("byTag", of: Post.self, version: 1) { post in post.tags.map { .string($0) } }

        let mine = try posts.entries(Post.self, where: "byAuthor", equals: .string("ada")).collect()
        let recent = try posts.entries(Post.self, where: "byTime",
                                       in: .date(since) ..< .date(.distantFuture), reverse: true, limit: 20)
        let keys = try posts.keys(where: "byTag", equals: .string("swift"))
        let n = try posts.count(where: "byAuthor", equals: .string("ada"))
#sourceLocation()
    }
}

extension ReadmeContext {
    /// Sources/ModelStore/ModelStore.docc/UpdatePoliciesAndExpiry.md:23
    func articleUpdatePoliciesAndExpiryLine23() throws {
#sourceLocation(file: "Sources/ModelStore/ModelStore.docc/UpdatePoliciesAndExpiry.md", line: 24)
        try store.set(session, forKey: "session", expiresAfter: 30)
#sourceLocation()
    }
}

extension ReadmeContext {
    /// Sources/ModelStore/ModelStore.docc/UpdatePoliciesAndExpiry.md:74
    func articleUpdatePoliciesAndExpiryLine74() throws {
#sourceLocation(file: "Sources/ModelStore/ModelStore.docc/UpdatePoliciesAndExpiry.md", line: 75)
        let policy = try ModelStore.recordedPolicy(ofDatabaseNamed: "userdb") ?? .low
        let store = try ModelStore(name: "userdb", policy: policy)
#sourceLocation()
    }
}
