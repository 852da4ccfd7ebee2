import Crypto
import Foundation
import ModelStore

/// What encryption at rest costs: puts, gets, an import and a scan of the benchmark's profile in
/// a store that seals its records (AES-256-GCM) against the same in a plain store. JSON codec,
/// ModelStore's default LevelDB settings, no object cache (a cached read never opens a record).
///
/// Compared in pairs of blocks of the same keys, back to back, as the metadata experiment does
/// (see ``runMetadataExperiment(records:rounds:directory:)``): the ratio is the median over every
/// block of every round, and a time the median of the rounds' mean CPU ns per operation. The
/// import and the scan are timed whole, once per round each, alternating which store goes first.
func runEncryptionExperiment(records: Int, rounds: Int, directory: String) async throws -> String {
    let corpus = ProfileCorpus(count: records)
    let key = SymmetricKey(size: .bits256)
    var samples = MetadataSamples()
    var importTimes: [String: [Double]] = [:]
    var scanTimes: [String: [Double]] = [:]
    for round in 0..<rounds {
        let plain = try openEncryptionStore(directory, "plain-\(round)", key: nil)
        let sealed = try openEncryptionStore(directory, "sealed-\(round)", key: key)
        try samples.pair("put, encrypted", over: "put", records: records, round: round) { range in
            for number in range { try sealed.set(corpus.profile(number), forKey: ProfileCorpus.key(number)) }
        } baseline: { range in
            for number in range { try plain.set(corpus.profile(number), forKey: ProfileCorpus.key(number)) }
        }
        try samples.pair("get, encrypted", over: "get", records: records, round: round) { range in
            for number in range { blackHole(try sealed.object(Profile.self, forKey: ProfileCorpus.key(number))) }
        } baseline: { range in
            for number in range { blackHole(try plain.object(Profile.self, forKey: ProfileCorpus.key(number))) }
        }
        // A scan decodes every record in key order through a cursor.
        for (name, store) in (round.isMultiple(of: 2) ? [("sealed", sealed), ("plain", plain)] : [("plain", plain), ("sealed", sealed)]) {
            let start = processCPUNanoseconds()
            let cursor = try store.entries(Profile.self)
            var count = 0
            while let entry = try cursor.next() {
                blackHole(entry)
                count += 1
            }
            precondition(count == records)
            scanTimes[name, default: []].append(Double(processCPUNanoseconds() - start) / Double(records))
        }
        // The crypto library alone, on a buffer of the profile's size: what the store's seal and
        // open are made of.
        let message = [UInt8](repeating: 0x5A, count: 420)
        let associated = [UInt8](repeating: 0x11, count: 40)
        let fixedNonce = AES.GCM.Nonce()
        samples.time("AES.GCM.Nonce()", records) { _ in blackHole(AES.GCM.Nonce()) }
        try samples.time("AES.GCM.seal, 420 bytes", records) { _ in
            blackHole(try AES.GCM.seal(message, using: key, nonce: fixedNonce, authenticating: associated))
        }
        let box = try AES.GCM.seal(message, using: key, nonce: fixedNonce, authenticating: associated)
        try samples.time("AES.GCM.open, 420 bytes", records) { _ in
            blackHole(try AES.GCM.open(box, using: key, authenticating: associated))
        }
        try plain.close()
        try sealed.close()
        // An import into empty stores, in chunks of 1,000 (the import's default).
        let importPlain = try openEncryptionStore(directory, "import-plain-\(round)", key: nil)
        let importSealed = try openEncryptionStore(directory, "import-sealed-\(round)", key: key)
        let profiles = (0..<records).map { corpus.profile($0) }
        for (name, store) in (round.isMultiple(of: 2) ? [("sealed", importSealed), ("plain", importPlain)] : [("plain", importPlain), ("sealed", importSealed)]) {
            let start = processCPUNanoseconds()
            _ = try await store.importObjects(profiles, key: { $0.id })
            importTimes[name, default: []].append(Double(processCPUNanoseconds() - start) / Double(records))
        }
        try importPlain.close()
        try importSealed.close()
        try? FileManager.default.removeItem(atPath: directory)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }
    func nanoseconds(_ times: [String: [Double]], _ name: String) -> Double { median(times[name] ?? []) ?? 0 }
    func extra(_ name: String, over baseline: String) -> String {
        String(format: "%+.0f ns", samples.nanoseconds(name) - samples.nanoseconds(baseline))
    }
    var lines = [
        "### Encryption at rest, CPU ns per operation",
        "",
        "\(records) records of the benchmark's profile (JSON, about 400 bytes), AES-256-GCM "
            + "(swift-crypto, BoringSSL), no object cache; median of \(rounds) rounds. Ratios: median "
            + "[quartiles] of paired blocks of \(metadataBlockSize) operations on the same keys, run back to back.",
        "",
        "| Operation | plain ns/op | encrypted ns/op | extra | |",
        "|---|---:|---:|---:|---|",
    ]
    for (operation, name, baseline) in [("put", "put, encrypted", "put"), ("get", "get, encrypted", "get")] {
        lines.append(
            "| \(operation) | " + String(format: "%.0f", samples.nanoseconds(baseline)) + " | "
                + String(format: "%.0f", samples.nanoseconds(name)) + " | " + extra(name, over: baseline) + " | "
                + samples.ratio(name, "of plain (target: ≤ 1 µs extra)") + " |")
    }
    for (operation, times) in [("import (per record)", importTimes), ("scan (per record)", scanTimes)] {
        let plain = nanoseconds(times, "plain")
        let sealed = nanoseconds(times, "sealed")
        lines.append(
            "| \(operation) | " + String(format: "%.0f | %.0f | %+.0f ns | %.2fx of plain |", plain, sealed, sealed - plain, sealed / max(plain, 1)))
    }
    for name in ["AES.GCM.Nonce()", "AES.GCM.seal, 420 bytes", "AES.GCM.open, 420 bytes"] {
        lines.append("| \(name) | | " + String(format: "%.0f", samples.nanoseconds(name)) + " | | swift-crypto alone |")
    }
    return lines.joined(separator: "\n")
}

private func openEncryptionStore(_ directory: String, _ name: String, key: SymmetricKey?) throws -> ModelStore {
    var configuration = ModelStore.Configuration()
    configuration.directory = URL(fileURLWithPath: directory, isDirectory: true)
    LevelDBTuning.modelStoreDefaults.apply(to: &configuration)
    configuration.objectCacheLimit = 0
    if let key { configuration.encryption = .aes256GCM(key: key) }
    return try ModelStore(name: name, policy: .never, configuration: configuration)
}
