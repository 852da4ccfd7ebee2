// Helper modes for the backup and restore tests (Tests/ModelStoreTests/Backup):
//
//   restore ROOT NAME SOURCE [replace]   print "ready", restore the backup folder SOURCE as NAME
//        (replacing an existing NAME with `replace`), print "done N" (entries restored) or
//        "error CASE MESSAGE". `MODELSTORE_TEST_CRASH_AT=<step>` kills it at one of the restore's
//        steps; the test may also kill it at a random moment.
import Foundation
import ModelStore

func runBackupMode(_ command: String, root: String, name: String, extra: [String]) throws -> Bool {
    switch command {
    case "restore":
        say("ready")
        do {
            let report = try ModelStore.restore(
                from: URL(fileURLWithPath: extra[0], isDirectory: true), named: name,
                in: URL(fileURLWithPath: root, isDirectory: true), replacingExisting: extra.contains("replace"))
            say("done \(report.records)")
        } catch {
            say("error \(caseName(error)) \(error)")
        }
    default:
        return false
    }
    return true
}
