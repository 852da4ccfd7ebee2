import Foundation
import ModelStore

/// ModelStore used through its public API only, as an application would.
final class ModelStoreContender: BenchmarkStore {
    /// The database's name under the contender's directory.
    static let databaseName = "bench"

    private let store: ModelStore

    /// Opens (creating) the store named ``databaseName`` under `directory`.
    init(directory: String, codec: any ModelCodec, tuning: LevelDBTuning, objectCacheLimit: Int = 0) throws {
        var configuration = ModelStore.Configuration()
        configuration.directory = URL(fileURLWithPath: directory, isDirectory: true)
        configuration.codec = codec
        configuration.now = { Date(timeIntervalSinceNow: clockOffset) }
        tuning.apply(to: &configuration)
        #if MODELSTORE_NEW_APIS
        configuration.objectCacheLimit = objectCacheLimit
        #else
        precondition(objectCacheLimit == 0, "this ModelStore has no object cache")
        #endif
        store = try ModelStore(name: Self.databaseName, policy: .custom(recordLifetime), configuration: configuration)
    }

    /// The LevelDB directory of the store under `directory`, for compacting it.
    static func levelDBPath(directory: String) -> String {
        directory + "/" + databaseName
    }

    func close() throws {
        try store.close()
    }

    func put(_ profile: Profile, forKey key: String, expired: Bool) throws {
        if expired {
            clockOffset = expiredOffset
            defer { clockOffset = 0 }
            try store.set(profile, forKey: key)
        } else {
            try store.set(profile, forKey: key)
        }
    }

    func get(_ key: String) throws -> Bool {
        guard let profile = try store.object(Profile.self, forKey: key) else { return false }
        blackHole(profile)
        return true
    }

    #if MODELSTORE_NEW_APIS
    func importProfiles<Profiles: Sequence<Profile>>(_ profiles: Profiles, batchSize: Int) async throws {
        _ = try await store.importObjects(profiles, key: \.storageKey, batchSize: batchSize)
    }

    func scanAll() throws -> Int {
        let cursor = try store.entries(Profile.self)
        var count = 0
        while let entry = try cursor.next() {
            blackHole(entry)
            count += 1
        }
        return count
    }

    func removeExpired() throws -> Int {
        try store.removeExpiredObjects()
    }
    #else
    func importProfiles<Profiles: Sequence<Profile>>(_ profiles: Profiles, batchSize: Int) async throws {
        throw WorkloadUnavailable()
    }

    func scanAll() throws -> Int {
        throw WorkloadUnavailable()
    }

    func removeExpired() throws -> Int {
        throw WorkloadUnavailable()
    }
    #endif
}

/// Thrown by a contender for a workload its library version cannot run yet.
struct WorkloadUnavailable: Error {}

extension Profile {
    /// The key the benchmarks store this profile under.
    var storageKey: String { ProfileCorpus.key(id) }
}
