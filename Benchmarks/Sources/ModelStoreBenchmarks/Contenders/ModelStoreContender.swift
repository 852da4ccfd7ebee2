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
        configuration.objectCacheLimit = objectCacheLimit
        store = try ModelStore(name: Self.databaseName, policy: .custom(recordLifetime), configuration: configuration)
    }

    /// Compacts the store under `directory` with ModelStore's own ``ModelStore/compact(in:)``,
    /// then closes it.
    static func compact(directory: String, tuning: LevelDBTuning) throws {
        let contender = try ModelStoreContender(directory: directory, codec: JSONModelCodec(), tuning: tuning)
        try contender.store.compact()
        try contender.close()
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

    func importProfiles<Profiles: Sequence<Profile>>(_ profiles: Profiles, batchSize: Int) async throws {
        try await store.importObjects(profiles, key: \.storageKey, batchSize: batchSize)
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
}

extension Profile {
    /// The key the benchmarks store this profile under.
    var storageKey: String { ProfileCorpus.key(id) }
}
