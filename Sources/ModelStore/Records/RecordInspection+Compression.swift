extension RecordInspection {
    /// Whether the record's model is stored compressed (a dictionary id and a Zstandard frame;
    /// see `recordCompression`). Reads decompress it: its stored size is the compressed one.
    @_spi(Inspection)
    public var isPayloadCompressed: Bool {
        flags & RecordHeader.compressedPayloadFlag != 0
    }
}
