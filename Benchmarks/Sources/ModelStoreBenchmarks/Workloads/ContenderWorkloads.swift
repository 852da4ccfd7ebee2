import Foundation
import ModelStore

/// Runs every workload of `contender` at `records` records in this process, using
/// `directory` for its databases.
func runWorkloads(of contender: Contender, records: Int, directory: String) async throws -> [Sample] {
    let corpus = ProfileCorpus(count: records)
    switch contender {
    case .cRaw:
        let pool = try (0..<ProfileCorpus.poolSize).map { Array(try JSONModelCodec().encode(corpus.profile($0))) }
        return try await runStandardWorkloads(
            cLevelDBFactory(codec: nil as JSONModelCodec?, encodedPool: pool), corpus: corpus, directory: directory)
    case .cJSON:
        // The baseline is what a user writes by hand: Foundation's JSONEncoder and JSONDecoder.
        return try await runStandardWorkloads(
            cLevelDBFactory(codec: JSONModelCodec.foundation), corpus: corpus, directory: directory)
    case .cPropertyList:
        return try await runStandardWorkloads(
            cLevelDBFactory(codec: PropertyListModelCodec()), corpus: corpus, directory: directory)
    case .cBinary:
        return try await runStandardWorkloads(
            cLevelDBFactory(codec: BinaryModelCodec()), corpus: corpus, directory: directory)
    case .modelStoreJSON:
        return try await runStandardWorkloads(
            modelStoreFactory(codec: JSONModelCodec(), tuning: .modelStoreDefaults), corpus: corpus,
            directory: directory)
    case .modelStoreJSONLevelDBDefaults:
        return try await runStandardWorkloads(
            modelStoreFactory(codec: JSONModelCodec.foundation, tuning: .levelDBDefaults), corpus: corpus,
            directory: directory)
    case .modelStoreJSONSnappy:
        return try await runStandardWorkloads(
            modelStoreFactory(codec: JSONModelCodec(), tuning: .snappyCompressed), corpus: corpus,
            directory: directory)
    case .modelStoreJSONZstd:
        return try await runStandardWorkloads(
            modelStoreFactory(codec: JSONModelCodec(), tuning: .zstdRecords), corpus: corpus, directory: directory)
    case .modelStorePropertyList:
        return try await runStandardWorkloads(
            modelStoreFactory(codec: PropertyListModelCodec(), tuning: .modelStoreDefaults), corpus: corpus,
            directory: directory)
    case .modelStoreBinary:
        return try await runStandardWorkloads(
            modelStoreFactory(codec: BinaryModelCodec(), tuning: .modelStoreDefaults), corpus: corpus,
            directory: directory)
    case .grdbJSON:
        let factory = StoreFactory(open: { try GRDBStore(path: $0 + ".sqlite") }, compact: { try GRDBStore.compact(path: $0 + ".sqlite") })
        return try await runStandardWorkloads(factory, corpus: corpus, directory: directory)
    case .modelStoreObjectCache:
        return [try await runCacheHitWorkload(corpus: corpus, directory: directory)]
    }
}

private func cLevelDBFactory<Codec: ModelCodec>(
    codec: Codec?, encodedPool: [[UInt8]] = []
) -> StoreFactory<CLevelDBStore<Codec>> {
    StoreFactory(
        open: { try CLevelDBStore(path: $0, codec: codec, encodedPool: encodedPool) },
        compact: { try compactLevelDB(at: $0, tuning: nil) })
}

private func modelStoreFactory(codec: any ModelCodec, tuning: LevelDBTuning) -> StoreFactory<ModelStoreContender> {
    StoreFactory(
        open: { try ModelStoreContender(directory: $0, codec: codec, tuning: tuning) },
        compact: { try ModelStoreContender.compact(directory: $0, tuning: tuning) })
}
