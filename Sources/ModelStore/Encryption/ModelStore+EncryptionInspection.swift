extension ModelStore {
    /// What a database's encryption marker says, for the `modelstore` tool: nil for a plain
    /// database, else the algorithm and the key identifier (8 hex digits; never the key), or the
    /// two keys of an unfinished re-keying. Not part of the stable API.
    ///
    /// - Throws: ``ModelStoreError/corrupted(path:message:)`` for a damaged marker.
    @_spi(Inspection)
    public func encryptionDescription() throws -> String? {
        let path = database.path
        guard let marker = try database.run({ engine in try EncryptionMarker.read(from: engine, path: path) }) else {
            return nil
        }
        let name = { (id: UInt32?) in id.map { "key \(RecordCipher.describe($0))" } ?? "no key" }
        if let target = marker.target {
            return "AES-256-GCM, re-keying from \(name(marker.current)) to \(name(target)) unfinished"
        }
        return "AES-256-GCM (\(name(marker.current)))"
    }
}
