/// Whether a record is absent, expired or live, judged from its envelope; a record is expired
/// only if its bytes vouch for that (see ``RecordHeader/vouchesForItsExpiry(value:key:)``).
enum RecordState {
    case missing, expired, live

    /// `key` is the record's LevelDB key, which its checksum covers.
    @inline(__always)
    init(_ record: UnsafeRawBufferPointer?, key: UnsafeRawBufferPointer, now: Double, timeToLive: Double?) {
        guard let record else {
            self = .missing
            return
        }
        // A damaged header still counts as present: contains() must not hide data that a
        // typed read would report as undecodable.
        guard let header = RecordHeader(parsingInPlace: record) else {
            self = .live
            return
        }
        guard header.isExpired(now: now, timeToLive: timeToLive) else {
            self = .live
            return
        }
        // Only a record that looks expired pays for the checksum: one that fails it is damage,
        // which counts as present for the same reason (its expiry may be what was damaged).
        self = header.vouchesForItsExpiry(value: record, key: key) ? .expired : .live
    }
}
