// Helper modes for the repair, delete and lock tests (Tests/ModelStoreTests/Reliability, Recovery and Database):
//
//   repair ROOT NAME named|policy [watch-lost]   print "ready", then repair NAME with
//        `ModelStore.repair(named:in:)` (named) or by opening it with `corruptionPolicy = .repair`
//        (policy), and print "done N" (records readable) or "error CASE MESSAGE". With
//        `watch-lost`, a thread watches for a log of NAME to appear in `lost/` and kills the
//        process with SIGKILL at once: the moment LevelDB's repair has archived a converted log
//        but not yet written the new MANIFEST. `MODELSTORE_TEST_CRASH_AT=<step>` kills it at one
//        of ModelStore's own steps instead; the test may also kill it at a random moment.
//   delete ROOT NAME                             print "ready", delete NAME, print "deleted" (or the error).
//   hold-leveldb ROOT NAME                       open ROOT/NAME with LevelDB's C API directly (no
//        ModelStore, no marker lock), like any other LevelDB program; print "ready" and keep it open
//        until standard input closes.
import CLevelDB
import Foundation
import Logging
import ModelStore
#if canImport(Glibc)
import Glibc
#endif

func runRecoveryMode(_ command: String, root: String, name: String, extra: [String]) throws -> Bool {
    switch command {
    case "repair":
        if extra.contains("watch-lost") { killWhenALogIsArchived(directory: root + "/" + name) }
        say("ready")
        do {
            if extra.first == "policy" {
                var configuration = configuration(root: root)
                configuration.corruptionPolicy = .repair
                configuration.logger = Logger(label: "helper") { _ in SwiftLogNoOpLogHandler() }
                let store = try ModelStore(name: name, policy: .never, configuration: configuration)
                let count = try store.count()
                try store.close()
                say("done \(count)")
            } else {
                let report = try ModelStore.repair(named: name, in: URL(fileURLWithPath: root, isDirectory: true))
                say("done \(report.recordsReadable)")
            }
        } catch {
            say("error \(caseName(error)) \(error)")
        }
    case "delete":
        say("ready")
        do {
            try ModelStore.deleteDatabase(named: name, in: URL(fileURLWithPath: root, isDirectory: true))
            say("deleted")
        } catch {
            say("error \(caseName(error)) \(error)")
        }
    case "hold-leveldb":
        holdWithLevelDB(directory: root + "/" + name)
    default:
        if try runBackupMode(command, root: root, name: name, extra: extra) { return true }
        return try runIndexMode(command, root: root, name: name, extra: extra)
    }
    return true
}

/// Starts a thread that spins on `lstat` (no sleeping: the window is milliseconds) until one
/// of the database's logs shows up in `lost/`, then kills the process.
func killWhenALogIsArchived(directory: String) {
    let logs = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { $0.hasSuffix(".log") }
    let watched = logs.map { directory + "/lost/" + $0 }
    let thread = Thread {
        var info = stat()
        while true {
            for path in watched where lstat(path, &info) == 0 {
                _ = kill(getpid(), SIGKILL)
            }
        }
    }
    thread.start()
}

func holdWithLevelDB(directory: String) {
    let options = leveldb_options_create()
    defer { leveldb_options_destroy(options) }
    leveldb_options_set_create_if_missing(options, 1)
    var error: UnsafeMutablePointer<CChar>?
    let database = leveldb_open(options, directory, &error)
    if let error {
        say("error \(String(cString: error))")
        leveldb_free(error)
        exit(1)
    }
    say("ready")
    _ = FileHandle.standardInput.readDataToEndOfFile()
    leveldb_close(database)
}
