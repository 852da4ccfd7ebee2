import Foundation
import ModelStoreTestSupport
import Testing

/// The quick-start demo `make demo` runs: it cleans up after itself, its own folder included, so
/// `modelstore list` has no empty program folder to suggest afterwards.
@Suite struct QuickStartDemoTests {
    @Test func theDemoLeavesNeitherItsDatabasesNorItsFolder() throws {
        let caches = TemporaryDirectory().url
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CACHE_HOME"] = caches.path  // its default directory is <caches>/ModelStore/modelstore-demo
        let demo = try ChildProcess.run(try ChildProcess.executable(named: "modelstore-demo"), [], environment: environment)
        #expect(demo.status == 0, "\(demo.stdout)\(demo.stderr)")
        #expect(demo.stdout.contains("== Sweeping and cleaning up"))
        let programs = caches.appendingPathComponent("ModelStore")
        #expect(!FileManager.default.fileExists(atPath: programs.appendingPathComponent("modelstore-demo").path))

        let list = try ChildProcess.run(try ChildProcess.executable(named: "modelstore"), ["list"], environment: environment)
        #expect(list.stderr.contains("No program has databases there yet."), "\(list.stderr)")
    }
}
