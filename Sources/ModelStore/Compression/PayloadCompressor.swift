/// Compresses a new record's model (``ModelStore/Configuration/recordCompression``) with the
/// database's dictionary, for the record encoder.
struct PayloadCompressor: Sendable {
    let compression: RecordCompression
    /// The database whose dictionary compresses, and which collects training samples until it has one.
    let database: OpenDatabase

    /// Compresses without a dictionary and offers no samples: the store encrypts, and a
    /// dictionary would keep the plaintext of the records it was trained on.
    let withoutDictionary: Bool

    /// A compressor for `compression`, or nil when it is off.
    init?(_ compression: RecordCompression, database: OpenDatabase, withoutDictionary: Bool = false) {
        guard compression.isEnabled else { return nil }
        self.compression = compression
        self.database = database
        self.withoutDictionary = withoutDictionary
    }

    /// Replaces the model at `payloadStart...` in a record being assembled by its compressed
    /// form, and sets the envelope's flag, when the database has a dictionary and that saves
    /// bytes; offers the model as a training sample while it has none. The checksum is sealed
    /// afterwards, over the bytes as stored.
    func compress(_ buffer: inout [UInt8], from payloadStart: Int) {
        guard let level = compression.level else { return }
        if withoutDictionary {
            Self.replacePayload(&buffer, from: payloadStart) { $0.compress($1, level: level) }
            return
        }
        guard let dictionary = database.dictionaries.current else {
            buffer.withUnsafeBytes {
                database.offerDictionarySample(
                    UnsafeRawBufferPointer(rebasing: $0[payloadStart...]), compression: compression)
            }
            return
        }
        guard let cdict = dictionary.cdict(level: level) else { return }
        Self.replacePayload(&buffer, from: payloadStart) { $0.compress($1, cdict: cdict, id: dictionary.id) }
    }

    /// Replaces the model at `payloadStart...` by what `compress` leaves in the thread's context's
    /// output, and sets the envelope's flag, when `compress` says it shrank the model.
    private static func replacePayload(
        _ buffer: inout [UInt8], from payloadStart: Int,
        _ compress: (ZstdCompressionContext, UnsafeRawBufferPointer) -> Bool
    ) {
        _ = ZstdCompressionContext.with { context in
            let shrunk = buffer.withUnsafeBytes { compress(context, UnsafeRawBufferPointer(rebasing: $0[payloadStart...])) }
            guard shrunk else { return }
            buffer.replaceSubrange(payloadStart..., with: context.output)
            buffer[1] |= RecordHeader.compressedPayloadFlag
        }
    }
}
