#if Encryption
#if canImport(CryptoKit)
import CryptoKit
#else
import Crypto
#endif
import Foundation
@testable import ModelStore
import ModelStoreTestSupport

/// Keys, stores and raw bytes for the encryption tests.
enum Sealing {
    /// A 256-bit key made from `seed`: the same seed, the same key, in every process.
    static func key(_ seed: UInt8) -> SymmetricKey {
        SymmetricKey(data: TestKeys.bytes(seed))
    }

    static let first = key(1)
    static let second = key(2)
    /// A 128-bit key, which AES-256-GCM refuses.
    static let shortKey = SymmetricKey(size: .bits128)

    /// The fixture's configuration, encrypting with `key` (nil: plain).
    static func configuration(
        _ fixture: Fixture, key: SymmetricKey?, codec: any ModelCodec = JSONModelCodec(),
        compression: RecordCompression = .none
    ) -> ModelStore.Configuration {
        var configuration = fixture.quietConfiguration
        configuration.codec = codec
        configuration.recordCompression = compression
        if let key { configuration.encryption = .aes256GCM(key: key) }
        return configuration
    }

    static func open(
        _ fixture: Fixture, _ name: String = "db", key: SymmetricKey?, codec: any ModelCodec = JSONModelCodec(),
        compression: RecordCompression = .none, policy: UpdatePolicy = .never
    ) throws -> ModelStore {
        try ModelStore(
            name: name, policy: policy,
            configuration: configuration(fixture, key: key, codec: codec, compression: compression))
    }

    /// The key identifier a record names, nil for a plain record.
    static func keyID(of record: [UInt8]) -> UInt32? {
        record.withUnsafeBytes { bytes in
            guard let header = RecordHeader(parsing: bytes), header.isSealed else { return nil }
            return UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: header.sealedAt, as: UInt32.self))
        }
    }

    /// Whether `needle` occurs in `haystack`.
    static func contains(_ haystack: [UInt8], _ needle: String) -> Bool {
        let bytes = Array(needle.utf8)
        guard bytes.count <= haystack.count else { return false }
        for start in 0...(haystack.count - bytes.count) where haystack[start..<(start + bytes.count)].elementsEqual(bytes) {
            return true
        }
        return false
    }

    /// Every file of a database folder and its bytes.
    static func files(of url: URL) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: url.path) {
            let path = url.appendingPathComponent(name).path
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else {
                continue
            }
            files[name] = try Data(contentsOf: URL(fileURLWithPath: path))
        }
        return files
    }

    /// `value` resealed under a new checksum for `key` in `collection`: what an attacker who
    /// knows the checksum's algorithm (but not the encryption key) can store.
    static func rechecksummed(_ value: [UInt8], forKey key: String, in collection: String? = nil) throws -> [UInt8] {
        var value = value
        let physical = try physicalKey(key, in: collection)
        physical.withUnsafeBytes { RecordHeader.seal(&value, key: $0) }
        return value
    }
}
#endif
