#if Encryption
#if canImport(CryptoKit)
public import CryptoKit
#else
public import Crypto
#endif
#endif

/// Whether a store seals its records, and with which key: ``ModelStore/Configuration/encryption``.
///
/// With `.aes256GCM(key:)`, every record's model and metadata are sealed with AES-256-GCM before
/// they reach LevelDB, and opened after their checksum is verified; the record's LevelDB key
/// (so its collection) and its envelope are bound to the seal, so a value copied to another key
/// or collection does not open. Keys, tags, timestamps and deadlines stay readable: they order
/// the database and let sweeps work without the key.
///
/// Available with the package trait `Encryption`, which brings in swift-crypto (CryptoKit on
/// Apple platforms): without it, ModelStore neither resolves nor builds it. For example:
///
/// ```swift
/// import Crypto   // CryptoKit on Apple platforms
///
/// var configuration = ModelStore.Configuration()
/// configuration.encryption = .aes256GCM(key: key)   // a 256-bit SymmetricKey you keep safe
/// let store = try ModelStore(name: "secrets", policy: .never, configuration: configuration)
/// ```
///
/// A database remembers that it is encrypted and by which key (an identifier derived from the
/// key, never the key): opening it without a key, with another key, or opening an unencrypted
/// database that holds records with a key throws ``ModelStoreError/encryptionMismatch(path:mismatch:)``
/// and changes nothing. `ModelStore.rekey(named:in:from:to:progress:)` changes the key, or
/// encrypts or decrypts a database.
public struct RecordEncryption: Sendable, CustomStringConvertible {
    /// The sealer behind the setting; nil for ``none``.
    let cipher: RecordCipher?

    /// Records are stored as they are encoded (the default).
    public static let none = RecordEncryption(cipher: nil)

    /// Whether records are sealed.
    public var isEnabled: Bool { cipher != nil }

    /// "none", or the algorithm and the key's identifier (never the key).
    public var description: String {
        guard let cipher else { return "none" }
        return cipher.description
    }

    #if Encryption
    /// Seals each record with AES-256-GCM under `key`, which must be 256 bits long
    /// (`SymmetricKey(size: .bits256)`; a shorter key is refused when the store opens).
    ///
    /// Each record gets a fresh random 96-bit nonce: keep one key for fewer than about four
    /// billion writes, and change it with `ModelStore.rekey(named:in:from:to:progress:)`.
    public static func aes256GCM(key: SymmetricKey) -> RecordEncryption {
        RecordEncryption(cipher: RecordCipher(key: key))
    }
    #else
    /// Unavailable: encryption needs the package trait `Encryption`.
    @available(
        *, unavailable,
        message: "Encryption needs ModelStore's package trait \"Encryption\": add traits: [\"Encryption\"] to the .package line of ModelStore in Package.swift"
    )
    public static func aes256GCM<Key>(key: Key) -> RecordEncryption {
        fatalError("unavailable")
    }
    #endif

    /// Throws for a key of the wrong size.
    func validate() throws(ModelStoreError) {
        try cipher?.validate()
    }
}
