import Foundation
import ModelStore
import Testing
import ModelStoreTestSupport

/// The read-only commands read a private copy: they never change a file of the database, work
/// while another process holds it (and say so), see one consistent moment while it is written,
/// and leave no copy behind.
@Suite("Read-only commands and the private copy")
struct ReadOnlyInspectionTests {
    /// Every read-only command line, for database `books` (collection `shelf`, key `a`).
    static let commands: [[String]] = [
        ["list"], ["list", "--json"], ["stats", "books"], ["stats", "books", "--json"],
        ["stats", "books", "--collection", "shelf"], ["keys", "books"], ["keys", "books", "--collection", "shelf"],
        ["collections", "books"], ["get", "books", "a"], ["get", "books", "a", "--json"], ["dump", "books"],
    ]

    /// A root with `books`: records in its own keys and in collection `shelf`, some flushed to
    /// tables and some only in the log, so a read-write open would rewrite the log and MANIFEST.
    private func makeBooks() throws -> StoreFixture {
        let fixture = StoreFixture()
        var configuration = fixture.baseConfiguration
        configuration.writeBufferSize = 64 << 10
        let store = try ModelStore(name: "books", policy: .low, configuration: configuration)
        let padding = String(repeating: "p", count: 500)
        for index in 0..<400 { try store.set(Book.sample("b\(index)" + padding), forKey: "k\(index)") }
        try store.set(Book.sample(), forKey: "a")
        try store.collection("shelf").set(Book.sample(), forKey: "s1")
        try store.close()
        return fixture
    }

    private func books(_ fixture: StoreFixture) -> URL { fixture.root.appendingPathComponent("books") }

    @Test("No read-only command changes any file of a closed database, and none leaves a copy behind",
          arguments: commands)
    func closedDatabaseIsUnchanged(command: [String]) throws {
        let fixture = try makeBooks()
        let before = FileHashes(of: books(fixture))
        let rootBefore = Set(try FileManager.default.contentsOfDirectory(atPath: fixture.root.path))
        let result = try ToolProcess.modelstore(command + fixture.rootArguments)
        #expect(result.status == 0, "\(command): \(result.stderr)")
        let after = FileHashes(of: books(fixture))
        #expect(after == before, "\(command) changed \(after.difference(from: before))")
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: fixture.root.path)) == rootBefore)
        #expect(!result.stderr.contains("open in another process"))
    }

    @Test("With the database open in another process, every read-only command works, says it read a private copy, and changes no file",
          arguments: commands)
    func databaseInUseIsReadFromACopy(command: [String]) throws {
        let fixture = try makeBooks()
        let holder = try fixture.open("books")
        defer { try? holder.close() }
        try holder.set(Book.sample(), forKey: "only-in-the-log")
        let before = FileHashes(of: books(fixture))
        let result = try ToolProcess.modelstore(command + fixture.rootArguments)
        #expect(result.status == 0, "\(command): \(result.stderr)")
        #expect(result.stderr.contains("books is open in another process"), "\(command): \(result.stderr)")
        #expect(!result.stdout.contains(".modelstore-inspect-"))
        let after = FileHashes(of: books(fixture))
        #expect(after == before, "\(command) changed \(after.difference(from: before))")
        #expect(!(try FileManager.default.contentsOfDirectory(atPath: fixture.root.path)).contains { $0.hasPrefix(".modelstore-inspect-") })
        if command == ["keys", "books"] {
            #expect(result.lines.contains("only-in-the-log"))  // the holder's unflushed write is in the copy
        }
    }

    @Test("While another process rewrites every key in atomic batches, each dump shows one moment: every key has one generation")
    func dumpWhileWritingIsConsistent() throws {
        let fixture = StoreFixture()
        var configuration = fixture.baseConfiguration
        configuration.writeBufferSize = 64 << 10  // flushes and compactions during the copies
        let store = try ModelStore(name: "books", policy: .never, configuration: configuration)
        defer { try? store.close() }
        let keys = (0..<200).map { "key-\($0)" }
        let padding = String(repeating: "x", count: 300)
        try store.write { batch in for key in keys { try batch.set("0 " + padding, forKey: key) } }
        let stop = Flag()
        let writer = Thread {
            var generation = 1
            while !stop.isSet {
                _ = try? store.write { batch in for key in keys { try batch.set("\(generation) " + padding, forKey: key) } }
                generation += 1
            }
        }
        writer.start()
        defer { stop.set() }
        var generations: Set<String> = []
        for _ in 0..<5 {
            let dump = try ToolProcess.modelstore(["dump", "books"] + fixture.rootArguments)
            #expect(dump.status == 0, "\(dump.stderr)")
            let values = dump.lines.compactMap { line -> String? in
                let object = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
                return (object?["value"] as? String)?.split(separator: " ").first.map(String.init)
            }
            #expect(values.count == keys.count)
            #expect(Set(values).count == 1, "one dump mixes generations \(Set(values).sorted())")
            generations.formUnion(values)
        }
        stop.set()
        writer.cancel()
        #expect(generations.count > 1, "the writer made no progress during the dumps")
        // The copies never touched the writer's files: it still writes, and reads every record.
        while !writer.isFinished { usleep(1_000) }
        try store.set("after", forKey: "after")
        try store.compact()
        #expect(try store.count() == keys.count + 1)
        #expect(try keys.allSatisfy { try store.object(String.self, forKey: $0) != nil })
    }

    @Test("A database with an interrupted repair's journal is not shown from its half-changed files: the tool says to finish the repair, and changes nothing")
    func pendingRepairIsNotInspected() throws {
        let fixture = try makeBooks()
        try Data("ModelStore is repairing this database.\n".utf8).write(to: books(fixture).appendingPathComponent(".modelstore-repair"))
        let before = FileHashes(of: books(fixture))
        let result = try ToolProcess.modelstore(["keys", "books"] + fixture.rootArguments)
        #expect(result.status == 1)
        #expect(result.stderr.contains("interrupted repair is pending"), "\(result.stderr)")
        #expect(result.stderr.contains("`modelstore repair books --root "), "\(result.stderr)")
        #expect(FileHashes(of: books(fixture)) == before)
    }

    @Test("A copy a killed modelstore left behind is removed by the next one")
    func abandonedCopyIsRemoved() throws {
        let fixture = try makeBooks()
        // A process id that is not running: the largest one the kernel hands out, plus one.
        let abandoned = fixture.root.appendingPathComponent(".modelstore-inspect-99999999-left")
        try FileManager.default.createDirectory(
            at: abandoned.appendingPathComponent("books"), withIntermediateDirectories: true)
        let result = try ToolProcess.modelstore(["keys", "books"] + fixture.rootArguments)
        #expect(result.status == 0)
        #expect(!FileManager.default.fileExists(atPath: abandoned.path))
    }

    @Test("Backup and restore through the tool: the backup opens by itself, restore refuses to overwrite unless --replace")
    func backupAndRestoreCommands() throws {
        let fixture = try makeBooks()
        let holder = try fixture.open("books")  // the backup works while the database is in use
        let destination = fixture.root.deletingLastPathComponent().appendingPathComponent(UUID().uuidString + "/books-copy")
        let before = FileHashes(of: books(fixture))
        let backup = try ToolProcess.modelstore(["backup", "books", destination.path] + fixture.rootArguments)
        #expect(backup.status == 0, "\(backup.stderr)")
        #expect(backup.stdout.contains("Backed up books"))
        #expect(FileHashes(of: books(fixture)) == before)
        try holder.close()

        let again = try ToolProcess.modelstore(["backup", "books", destination.path] + fixture.rootArguments)
        #expect(again.status == 1)
        #expect(again.stderr.contains("already exists"))

        let refused = try ToolProcess.modelstore(["restore", destination.path, "books"] + fixture.rootArguments)
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("already exists"), "\(refused.stderr)")

        let restored = try ToolProcess.modelstore(["restore", destination.path, "books2"] + fixture.rootArguments)
        #expect(restored.status == 0, "\(restored.stderr)")
        let replaced = try ToolProcess.modelstore(["restore", destination.path, "books", "--replace"] + fixture.rootArguments)
        #expect(replaced.status == 0, "\(replaced.stderr)")
        let keys = try ToolProcess.modelstore(["keys", "books2"] + fixture.rootArguments)
        #expect(keys.lines.count == 401)
    }
}

extension ReadOnlyInspectionTests {
    @Test("On a terminal, backup and restore draw a progress bar; piped, they print only their result",
          .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script"), "needs script(1) for a terminal"))
    func progressOnATerminal() throws {
        let fixture = try makeBooks()
        let tool = try ChildProcess.executable(named: "modelstore").path
        let destination = fixture.root.deletingLastPathComponent().appendingPathComponent(UUID().uuidString + "/copy")
        // script(1) runs the command on a pseudo-terminal and copies what it draws to its output.
        let command = [tool, "backup", "books", destination.path, "--root", fixture.root.path]
            .map { "'" + $0 + "'" }.joined(separator: " ")
        let onTerminal = try ChildProcess.run(URL(fileURLWithPath: "/usr/bin/script"), ["-qec", command, "/dev/null"])
        #expect(onTerminal.status == 0, "\(onTerminal.stdout)")
        #expect(onTerminal.stdout.contains("Backing up books ["), "\(onTerminal.stdout)")
        #expect(onTerminal.stdout.contains("Backed up books"))

        let piped = try ToolProcess.modelstore(["restore", destination.path, "again"] + fixture.rootArguments)
        #expect(piped.status == 0)
        #expect(piped.stderr.isEmpty, "\(piped.stderr)")
        #expect(piped.lines.count == 1 && piped.stdout.hasPrefix("Restored again: "), "\(piped.stdout)")
    }
}

/// A flag threads set and read (tests only).
final class Flag: @unchecked Sendable {
    // @unchecked: `value` is only touched under `lock`.
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.lock(); defer { lock.unlock() }; return value }
    func set() { lock.lock(); value = true; lock.unlock() }
}
