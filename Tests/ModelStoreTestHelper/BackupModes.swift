// Helper modes for the backup and restore tests (Tests/ModelStoreTests/Backup):
//
//   restore ROOT NAME SOURCE [replace]   print "ready", restore the backup folder SOURCE as NAME
//        (replacing an existing NAME with `replace`), print "done N" (entries restored) or
//        "error CASE MESSAGE". `MODELSTORE_TEST_CRASH_AT=<step>` kills it at one of the restore's
//        steps; the test may also kill it at a random moment.
//   backup ROOT NAME DEST                 open NAME, print "ready", back it up to the folder DEST,
//        print "done N" (entries copied) or "error CASE MESSAGE"; killed the same ways.
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
    case "backup":
        do {
            let store = try ModelStore(name: name, policy: .never, configuration: configuration(root: root))
            say("ready")
            let report = try store.backup(to: URL(fileURLWithPath: extra[0], isDirectory: true))
            say("done \(report.records)")
        } catch {
            say("error \(caseName(error)) \(error)")
        }
    default:
        return false
    }
    return true
}
