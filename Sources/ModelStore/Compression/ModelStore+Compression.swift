/// Compressing a new record's model (``ModelStore/Configuration/recordCompression``).
extension ModelStore {
    /// Replaces the model at `payloadStart...` in a record being assembled by its compressed
    /// form, and sets the envelope's flag, when the database has a dictionary and that saves
    /// bytes; offers the model as a training sample while it has none. The checksum is sealed
    /// afterwards, over the bytes as stored.
    func compressPayload(of buffer: inout [UInt8], from payloadStart: Int) {
        let compression = configuration.recordCompression
        guard let level = compression.level else { return }
        let database = database
        guard let dictionary = database.dictionaries.current else {
            buffer.withUnsafeBytes {
                database.offerDictionarySample(
                    UnsafeRawBufferPointer(rebasing: $0[payloadStart...]), compression: compression)
            }
            return
        }
        guard let cdict = dictionary.cdict(level: level) else { return }
        _ = ZstdCompressionContext.with { context in
            let shrunk = buffer.withUnsafeBytes {
                context.compress(UnsafeRawBufferPointer(rebasing: $0[payloadStart...]), cdict: cdict, id: dictionary.id)
            }
            guard shrunk else { return }
            buffer.replaceSubrange(payloadStart..., with: context.output)
            buffer[1] |= RecordHeader.compressedPayloadFlag
        }
    }
}
