import Testing
import ModelStore
import ModelStoreTestSupport

extension Fixture {
    /// Reads every crash-test key, checking that each record is intact.
    func crashState(name: String = "db") throws -> CrashModel.State {
        let store = try openQuietly(name)
        defer { try? store.close() }
        var state: CrashModel.State = [:]
        for key in CrashModel.keys {
            guard let record = try store.object(CrashRecord.self, forKey: key) else { continue }
            #expect(record.isIntact, "record \(key) came back damaged")
            state[key] = record.op
        }
        return state
    }
}
