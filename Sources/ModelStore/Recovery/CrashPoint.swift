#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The steps of ModelStore's multi-step file operations (repair, delete, create) where the
/// reliability tests make a helper process die.
///
/// A test starts `ModelStoreTestHelper` with `MODELSTORE_TEST_CRASH_AT=<raw value>` in its
/// environment; when the helper reaches that step it kills itself with SIGKILL, exactly as a
/// crash there would. Without the variable (always, outside those tests) a step costs one
/// comparison with a value read once.
enum CrashPoint: String, CaseIterable {
    /// The repair's backup and journal are written; no LevelDB file has changed yet.
    case repairBackedUp = "repair-backed-up"
    /// Damaged log records are neutralised (in copies renamed over the logs).
    case repairScrubbed = "repair-scrubbed"
    /// LevelDB's repair returned; the journal still says a repair is in progress.
    case repairRepaired = "repair-repaired"
    /// The journal is gone (the repair is committed); the backup folder is not yet.
    case repairCommitted = "repair-committed"
    /// A restore from the backup removed the directory's LevelDB files and linked none back.
    case restoreEmptied = "restore-emptied"
    /// A reset removed `CURRENT`; the other LevelDB files and its journal are still there.
    case resetStarted = "reset-started"
    /// A deleted database's folder was renamed to a trash folder; nothing is removed yet.
    case deleteRenamed = "delete-renamed"
    /// A trash folder is empty except for its marker.
    case trashEmptied = "trash-emptied"
    /// A trash folder's marker is gone; the empty folder remains.
    case trashUnmarked = "trash-unmarked"
    /// A new database's staging folder exists; its marker does not yet.
    case creationStaged = "creation-staged"
    /// The staging folder's marker is written and locked; the folder is not renamed yet.
    case creationMarked = "creation-marked"
    /// The staging folder is renamed to the database's name; its creation lock is still held.
    case creationRenamed = "creation-renamed"
    /// A backup's or restore's staging folder holds the complete new database, flushed; it is
    /// not renamed into place yet.
    case stagingFilled = "staging-filled"
    /// The staging folder was renamed (or exchanged) into place; its note is still in it.
    case stagingInstalled = "staging-installed"
    /// A restore exchanged the new database with the one it replaces, which now sits under the
    /// staging name and is not yet deleted.
    case restoreExchanged = "restore-exchanged"

    /// A re-keying's marker says it is under way; no record is rewritten yet.
    case rekeyMarked = "rekey-marked"
    /// A re-keying wrote a chunk of records (`rekey-chunk:N` arms the Nth, from 1).
    case rekeyChunk = "rekey-chunk"
    /// A re-keying rewrote every record; its marker still says it is under way.
    case rekeyRewritten = "rekey-rewritten"

    /// Eviction's walk chose what leaves a window and added its deletes to the chunk's batch,
    /// which is not written yet (`eviction-window:N` arms the Nth window, from 1).
    case evictionWindow = "eviction-window"

    private static let armed: String? = getenv("MODELSTORE_TEST_CRASH_AT").map { String(cString: $0) }

    /// Kills the process if a test armed the `occurrence`th time this step is reached
    /// (`MODELSTORE_TEST_CRASH_AT=<raw value>:<occurrence>`).
    func reached(occurrence: Int) {
        guard let armed = Self.armed, armed == "\(rawValue):\(occurrence)" else { return }
        _ = kill(getpid(), SIGKILL)
    }

    /// Kills the process if a test armed this step.
    func reached() {
        guard let armed = Self.armed, armed == rawValue else { return }
        _ = kill(getpid(), SIGKILL)
    }
}
