// Eviction modes (EvictionCrashTests):
//
//   ModelStoreTestHelper evict ROOT NAME COUNT LIMIT
//       opens NAME with maximumRecordCount LIMIT (eviction inline, by use), prints "ready", then
//       writes "k0" ... "k<COUNT-1>" (value: the index), reading every earlier tenth key after
//       each write; prints "done" at the end. `MODELSTORE_TEST_CRASH_AT=eviction-window:N` kills
//       it in the Nth window of eviction's walk, with the window's deletes chosen and not written.
import Foundation
@_spi(Benchmark) import ModelStore

func runEvictionMode(_ command: String, root: String, name: String, extra: [String]) -> Bool {
    guard command == "evict", extra.count == 2, let count = Int(extra[0]), let limit = Int(extra[1]) else {
        return false
    }
    do {
        var configuration = configuration(root: root)
        configuration.maximumRecordCount = limit
        configuration.evictsInline = true
        let store = try ModelStore(name: name, policy: .never, configuration: configuration)
        say("ready")
        for index in 0..<count {
            try store.set(index, forKey: "k\(index)")
            for earlier in stride(from: 0, to: index, by: 10) { _ = try store.object(Int.self, forKey: "k\(earlier)") }
        }
        try store.close()
        say("done")
    } catch {
        say(caseName(error))
        exit(1)
    }
    return true
}
